//! The registry of the targets' case sections, in `; case:` header order: each target's own
//! knobs ([`crate::case::section`]). A target with knobs adds its section here, beside its line
//! in [`super::all`].

use crate::case::section::Section;

/// Every target's section, at its defaults.
pub fn all() -> Vec<Box<dyn Section>> {
    vec![
        Box::new(super::driver::knobs::ModuleKnobs::default()),
        Box::new(super::anv::knobs::AnvKnobs::default()),
        Box::new(super::radv::knobs::RadvKnobs::default()),
        Box::new(super::turnip::knobs::TurnipKnobs::default()),
        Box::new(super::nvk::knobs::NvkKnobs::default()),
        Box::new(super::asahi::knobs::AsahiKnobs::default()),
    ]
}

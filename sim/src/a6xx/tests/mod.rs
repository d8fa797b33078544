//! Hand-assembled programs checking values, timing, hazards and divergence.

//! What a dispatch gives a program (invocations, uniforms, buffers, textures) and what it leaves
//! behind (output slots and buffer contents) — the same for the interpreter and both machines,
//! so the oracle compares like with like.

use crate::semantics::{buffer_word, TextureDesc};

/// The resources of one dispatch.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Dispatch {
    /// Number of invocations; each has its own invocation id `0..invocations`.
    pub invocations: u32,
    /// Output slots (32-bit words) per invocation, all zero at the start.
    pub outputs: u32,
    /// Invocations per workgroup ([`WORKGROUP_SIZES`]; it divides `invocations`). Invocation
    /// `i` is local invocation `i % workgroup` of workgroup `i / workgroup`.
    pub workgroup: u32,
    /// The uniform (constant) file, shared by all invocations. Indices wrap at its length.
    pub uniforms: Vec<u32>,
    /// Length in words of each buffer, per invocation. Contents start as
    /// [`buffer_word`]; indices wrap at the length.
    pub buffers: Vec<u32>,
    /// Length in words of each workgroup-shared array, per workgroup. Every word starts at 0;
    /// indices wrap at the length.
    pub shared: Vec<u32>,
    /// The textures, read through [`crate::semantics::texel`].
    pub textures: Vec<TextureDesc>,
}

/// The workgroup sizes a dispatch may have: the interpreter runs invocations in aligned groups
/// of eight in lockstep, and a workgroup lives inside one such group.
pub const WORKGROUP_SIZES: [u32; 4] = [1, 2, 4, 8];

impl Default for Dispatch {
    fn default() -> Self {
        Dispatch {
            invocations: 0,
            outputs: 0,
            workgroup: 1,
            uniforms: Vec::new(),
            buffers: Vec::new(),
            shared: Vec::new(),
            textures: Vec::new(),
        }
    }
}

/// Everything a run leaves behind that the oracle compares.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Results {
    /// Output slots, invocation-major: slot `s` of invocation `i` is `outputs[i * slots + s]`.
    pub outputs: Vec<u32>,
    /// Final buffer contents, one vector per buffer, invocation-major like `outputs`.
    pub buffers: Vec<Vec<u32>>,
}

impl Dispatch {
    /// Whether the workgroup size is one of [`WORKGROUP_SIZES`] and the invocations make whole
    /// workgroups of it.
    pub fn whole_workgroups(&self) -> bool {
        WORKGROUP_SIZES.contains(&self.workgroup) && self.invocations.is_multiple_of(self.workgroup)
    }

    /// Whether the dispatch's workgroups are visible to its program: more than one invocation
    /// each, or shared memory.
    pub fn has_workgroups(&self) -> bool {
        self.workgroup > 1 || !self.shared.is_empty()
    }

    /// The state before the first instruction runs: zeroed outputs, buffers at their
    /// initial contents.
    pub fn initial_results(&self) -> Results {
        Results {
            outputs: vec![0; (self.invocations * self.outputs) as usize],
            buffers: INITIAL_BUFFERS.with_borrow_mut(|last| {
                if last.invocations != self.invocations || last.lengths != self.buffers {
                    *last = InitialBuffers::of(self);
                }
                last.contents.clone()
            }),
        }
    }
}

/// The initial buffer contents of the last dispatch this thread asked for. Every executor
/// of a case (the interpreter twice, each simulator) starts from them, and hashing every
/// word again cost more than copying it.
#[derive(Default)]
struct InitialBuffers {
    invocations: u32,
    lengths: Vec<u32>,
    contents: Vec<Vec<u32>>,
}

impl InitialBuffers {
    fn of(d: &Dispatch) -> InitialBuffers {
        let n = d.invocations;
        let contents = d
            .buffers
            .iter()
            .enumerate()
            .map(|(b, &len)| {
                // Nested loops into a vector of the known size: a `flat_map` collect
                // cannot size it up front and grows it step by step.
                let mut words = Vec::with_capacity(n as usize * len as usize);
                for i in 0..n {
                    words.extend((0..len).map(|k| buffer_word(b as u32, i, k)));
                }
                words
            })
            .collect();
        InitialBuffers {
            invocations: n,
            lengths: d.buffers.clone(),
            contents,
        }
    }
}

thread_local! {
    static INITIAL_BUFFERS: std::cell::RefCell<InitialBuffers> = Default::default();
}

impl Results {
    /// The first place where `self` (expected) and `actual` differ, as
    /// (what, invocation, index, expected, actual).
    pub fn first_difference(&self, actual: &Results, dispatch: &Dispatch) -> Option<Difference> {
        self.first_difference_in(actual, dispatch, |_, _| true)
    }

    /// Like [`Results::first_difference`], over only the words `compared(place, index)` keeps
    /// (`index` within one invocation's slots or buffer part): a target whose results are exact
    /// only in part (a real driver's transcendental floats) is judged on the rest.
    pub fn first_difference_in(
        &self,
        actual: &Results,
        dispatch: &Dispatch,
        compared: impl Fn(Place, u32) -> bool,
    ) -> Option<Difference> {
        let outputs = (
            Place::Output,
            dispatch.outputs,
            &self.outputs,
            &actual.outputs,
        );
        let buffers = (self.buffers.iter().zip(&actual.buffers).enumerate())
            .map(|(b, (e, a))| (Place::Buffer(b as u32), dispatch.buffers[b], e, a));
        for (place, len, expected, actual) in std::iter::once(outputs).chain(buffers) {
            let len = len.max(1) as usize;
            for (k, (&e, &a)) in expected.iter().zip(actual).enumerate() {
                let index = (k % len) as u32;
                if e != a && compared(place, index) {
                    return Some(Difference {
                        place,
                        invocation: (k / len) as u32,
                        index,
                        expected: e,
                        actual: a,
                    });
                }
            }
        }
        None
    }
}

/// Where a difference between two runs lies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Place {
    /// An output slot.
    Output,
    /// A word of the numbered buffer.
    Buffer(u32),
}

/// One differing word between an expected and an actual run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Difference {
    /// Output slots or which buffer.
    pub place: Place,
    /// The invocation whose word differs.
    pub invocation: u32,
    /// Slot or word index within that invocation's part.
    pub index: u32,
    /// The reference interpreter's value.
    pub expected: u32,
    /// The value the compiled program produced.
    pub actual: u32,
}

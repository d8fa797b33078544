//! Tests of the verifier.

//! The binary-column explanation of Nim (safe and unsafe positions).

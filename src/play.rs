//! Interactive play against the computer.

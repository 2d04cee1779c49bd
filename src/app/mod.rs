//! Explorer state: plain data and a pure `update(state, action)`.

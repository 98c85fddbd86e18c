//! fake-qwen's unit tests on the recorded qwen 0.24.4 data.

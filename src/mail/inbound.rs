//! Incoming mail: raw bytes to what the service needs.

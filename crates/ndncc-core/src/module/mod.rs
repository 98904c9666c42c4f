pub mod config;
pub use config::ModuleConfig;

//! The Vulkan worker process: serves `vulkan_runner::wire` requests on stdin/stdout.

fn main() -> std::process::ExitCode {
    vulkan_runner::serve::serve()
}

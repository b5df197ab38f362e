//! Device `printf` output. The engine buffers it per launch; CUDA writes it out at the
//! synchronisation points its documentation names (context, stream and event synchronisation,
//! blocking copies, module unload, context destruction or primary-context reset), and so does
//! the driver: every such point calls [`flush`].

/// Writes pending device printf output through C stdio.
pub fn flush() {
    // TODO(engine): call `engine::flush_printf()` here once the engine provides it.
}

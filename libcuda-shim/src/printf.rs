//! Device `printf` output. The engine buffers it; CUDA writes it out at the synchronisation
//! points its documentation names (context, stream and event synchronisation, blocking copies,
//! module unload, context destruction or primary-context reset), and so does the driver: every
//! such point calls [`flush`].

/// Writes pending device printf output through C stdio.
pub fn flush() {
    engine::flush_printf();
}

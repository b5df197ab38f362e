//! Peer access between contexts of different devices (`cuCtxEnablePeerAccess`,
//! `cuCtxDisablePeerAccess`), answered as a GPU system with every pair of devices connected
//! answers. The emulated devices share one address space; what a context's peers are decides
//! which devices' memory its kernels may reach (`launch::kernel`'s `reach`, checked by the
//! engine when an allocation enters a warp's cache).

use crate::context::{active, current, Context, CONTEXTS};
use crate::errors::{CuResult, INVALID_VALUE};
use abi::*;
use std::ffi::c_uint;
use std::sync::Arc;

/// Lets the current context access `peer`'s memory. The checks, in the real driver's terms:
/// no current context or an invalid `peer` is CUDA_ERROR_INVALID_CONTEXT; a peer on the same
/// device (the current context itself included: a real H200 answers so, driver 580.159) is
/// CUDA_ERROR_PEER_ACCESS_UNSUPPORTED, since cuDeviceCanAccessPeer says 0 for it; nonzero
/// flags are CUDA_ERROR_INVALID_VALUE; a second enabling is
/// CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED.
pub(crate) unsafe fn enable(peer: CUcontext, flags: c_uint) -> CuResult {
    let me = active()?;
    let other = CONTEXTS.get(peer)?;
    if other.device == me.device {
        return Err(CUresult::CUDA_ERROR_PEER_ACCESS_UNSUPPORTED);
    }
    if flags != 0 {
        return Err(INVALID_VALUE);
    }
    let mut peers = me.peers.lock();
    if peers.contains(&(peer as usize)) {
        return Err(CUresult::CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED);
    }
    peers.push(peer as usize);
    Ok(())
}

/// Withdraws what [`enable`] granted: CUDA_ERROR_PEER_ACCESS_NOT_ENABLED when it was not.
pub(crate) unsafe fn disable(peer: CUcontext) -> CuResult {
    let me = current()?;
    CONTEXTS.get(peer)?;
    let mut peers = me.peers.lock();
    let before = peers.len();
    peers.retain(|&p| p != peer as usize);
    if peers.len() == before {
        return Err(CUresult::CUDA_ERROR_PEER_ACCESS_NOT_ENABLED);
    }
    Ok(())
}

/// Ends every peer access from and to `ctx`, which is being destroyed or reset: a context that
/// goes away takes the access granted to and by it along.
pub(crate) fn forget(ctx: &Arc<Context>) {
    ctx.peers.lock().clear();
    let h = ctx.handle() as usize;
    // Visits every context (finding none).
    CONTEXTS.position(|other| {
        other.peers.lock().retain(|&p| p != h);
        false
    });
}

fn main() {
    // Programs and cudart find the driver by soname: dlopen("libcuda.so.1") and DT_NEEDED
    // libcuda.so.1 both match a preloaded library whose DT_SONAME is libcuda.so.1.
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libcuda.so.1");
}

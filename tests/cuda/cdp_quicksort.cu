// Dynamic parallelism: a recursive quicksort in which every partition launches a grid per half
// from device code (each into a stream of its own, created and destroyed on the device), down
// to 16 levels, below which (or under 32 elements) a selection sort finishes the range. The
// top grid then tail-launches a check (cudaStreamTailLaunch), which may only start once the
// whole tree of sorting grids has finished: it counts the out-of-order neighbours. The host
// compares the result with std::sort of the same keys. Build: nvcc -rdc=true ... -lcudadevrt.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define MAX_DEPTH 16
#define SMALL 32

__device__ void selection_sort(unsigned *data, int left, int right) {
    for (int i = left; i <= right; ++i) {
        unsigned best = data[i];
        int at = i;
        for (int j = i + 1; j <= right; ++j)
            if (data[j] < best) {
                best = data[j];
                at = j;
            }
        data[at] = data[i];
        data[i] = best;
    }
}

__global__ void count_unsorted(const unsigned *data, int n, int *bad) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i == 0) atomicAdd(bad, 1); // from -1: 0 says the check ran and found nothing
    if (i + 1 < n && data[i] > data[i + 1]) atomicAdd(bad, 1);
}

__global__ void quicksort(unsigned *data, int left, int right, int depth, int *bad, int n) {
    if (depth >= MAX_DEPTH || right - left < SMALL) {
        selection_sort(data, left, right);
    } else {
        unsigned pivot = data[(left + right) / 2];
        int l = left, r = right;
        while (l <= r) {
            while (data[l] < pivot) l++;
            while (data[r] > pivot) r--;
            if (l <= r) {
                unsigned t = data[l];
                data[l] = data[r];
                data[r] = t;
                l++;
                r--;
            }
        }
        if (left < r) {
            cudaStream_t s;
            cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
            quicksort<<<1, 1, 0, s>>>(data, left, r, depth + 1, bad, n);
            cudaStreamDestroy(s);
        }
        if (l < right) {
            cudaStream_t s;
            cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
            quicksort<<<1, 1, 0, s>>>(data, l, right, depth + 1, bad, n);
            cudaStreamDestroy(s);
        }
    }
    if (depth == 0) count_unsorted<<<(n + 255) / 256, 256, 0, cudaStreamTailLaunch>>>(data, n, bad);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) printf("launch error at depth %d: %d\n", depth, (int)e);
}

int main() {
    const int n = 1 << 15;
    std::vector<unsigned> h(n);
    unsigned x = 12345;
    for (auto &v : h) {
        x = x * 1664525u + 1013904223u;
        v = x >> 8;
    }
    unsigned *d;
    int *bad;
    cudaMalloc(&d, n * sizeof(unsigned));
    cudaMalloc(&bad, sizeof(int));
    cudaMemset(bad, 0xff, sizeof(int)); // -1
    cudaMemcpy(d, h.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice);
    quicksort<<<1, 1>>>(d, 0, n - 1, 0, bad, n);
    cudaError_t launch = cudaGetLastError(), sync = cudaDeviceSynchronize();
    std::vector<unsigned> got(n);
    int unsorted = -1;
    cudaMemcpy(got.data(), d, n * sizeof(unsigned), cudaMemcpyDeviceToHost);
    cudaMemcpy(&unsorted, bad, sizeof(int), cudaMemcpyDeviceToHost);
    std::sort(h.begin(), h.end());
    int wrong = 0;
    for (int i = 0; i < n; i++) wrong += got[i] != h[i];
    bool ok = launch == cudaSuccess && sync == cudaSuccess && wrong == 0 && unsorted == 0;
    printf("%s quicksort of %d keys: launch=%d sync=%d wrong=%d unsorted_seen_by_tail=%d\n",
           ok ? "PASS" : "FAIL", n, (int)launch, (int)sync, wrong, unsorted);
    return ok ? 0 : 1;
}

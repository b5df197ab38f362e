// Dynamic parallelism: adaptive refinement (the Mariani-Silver algorithm for the Mandelbrot
// set). Each block computes the escape counts ("dwells") along the border of its square; if
// the whole border has one dwell the block launches a grid that fills the square with it,
// else it launches a grid of 4x4 blocks on the sub-squares, or, at the smallest size, a grid
// computing every pixel. Many blocks of many grids launch at once, at three levels. The host
// runs the same algorithm recursively and the two images must be equal pixel for pixel (both
// sides compute the dwell with the same float operations: nvcc -fmad=false keeps the device
// from fusing them, and the x86-64 host has no fused operation by default).
// Build: nvcc -rdc=true -fmad=false ... -lcudadevrt.
#include <cstdio>
#include <vector>

#define W 512
#define H 512
#define MAX_DWELL 256
#define SUBDIV 4
#define MIN_SIZE 16
#define MAX_LEVEL 4
#define BS 8
#define NEUTRAL (MAX_DWELL + 1)
#define DIFFERENT (-1)

struct Box {
    float x0, y0, x1, y1;
};

__host__ __device__ int dwell(Box b, int x, int y) {
    float cx = b.x0 + (b.x1 - b.x0) * ((float)x / W);
    float cy = b.y0 + (b.y1 - b.y0) * ((float)y / H);
    float zx = cx, zy = cy;
    int d = 0;
    while (d < MAX_DWELL && zx * zx + zy * zy < 4.0f) {
        float t = zx * zx - zy * zy + cx;
        zy = 2.0f * zx * zy + cy;
        zx = t;
        d++;
    }
    return d;
}

__host__ __device__ int same(int a, int b) {
    if (a == b) return a;
    if (a == NEUTRAL) return b;
    if (b == NEUTRAL) return a;
    return DIFFERENT;
}

// The i-th of the 4*(d-1) border pixels of the square at (x0, y0) of side d.
__host__ __device__ void border_pixel(int i, int d, int x0, int y0, int *x, int *y) {
    int side = i / (d - 1), k = i % (d - 1);
    switch (side) {
    case 0: *x = x0 + k; *y = y0; break;
    case 1: *x = x0 + d - 1; *y = y0 + k; break;
    case 2: *x = x0 + d - 1 - k; *y = y0 + d - 1; break;
    default: *x = x0; *y = y0 + d - 1 - k; break;
    }
}

__device__ int border_dwell(Box b, int x0, int y0, int d) {
    __shared__ int common;
    int t = threadIdx.y * blockDim.x + threadIdx.x, nt = blockDim.x * blockDim.y;
    if (t == 0) common = NEUTRAL;
    __syncthreads();
    int mine = NEUTRAL;
    for (int i = t; i < 4 * (d - 1); i += nt) {
        int x, y;
        border_pixel(i, d, x0, y0, &x, &y);
        mine = same(mine, dwell(b, x, y));
    }
    int old = common, seen;
    do {
        seen = old;
        old = atomicCAS(&common, seen, same(seen, mine));
    } while (old != seen);
    __syncthreads();
    return common;
}

__global__ void fill(int *img, int x0, int y0, int d, int value) {
    int x = x0 + blockIdx.x * blockDim.x + threadIdx.x, y = y0 + blockIdx.y * blockDim.y + threadIdx.y;
    if (x < x0 + d && y < y0 + d) img[y * W + x] = value;
}

__global__ void per_pixel(int *img, Box b, int x0, int y0, int d) {
    int x = x0 + blockIdx.x * blockDim.x + threadIdx.x, y = y0 + blockIdx.y * blockDim.y + threadIdx.y;
    if (x < x0 + d && y < y0 + d) img[y * W + x] = dwell(b, x, y);
}

__global__ void refine(int *img, Box b, int x0, int y0, int d, int level, int *launches) {
    x0 += d * blockIdx.x;
    y0 += d * blockIdx.y;
    int common = border_dwell(b, x0, y0, d);
    if (threadIdx.x == 0 && threadIdx.y == 0) {
        dim3 bs(BS, BS), g((d + BS - 1) / BS, (d + BS - 1) / BS);
        if (common != DIFFERENT) {
            fill<<<g, bs>>>(img, x0, y0, d, common);
        } else if (level + 1 < MAX_LEVEL && d / SUBDIV >= MIN_SIZE) {
            refine<<<dim3(SUBDIV, SUBDIV), bs>>>(img, b, x0, y0, d / SUBDIV, level + 1, launches);
        } else {
            per_pixel<<<g, bs>>>(img, b, x0, y0, d);
        }
        atomicAdd(launches, 1);
        if (cudaGetLastError() != cudaSuccess) atomicAdd(launches, 1 << 20);
    }
}

static void refine_host(std::vector<int> &img, Box b, int x0, int y0, int d, int level) {
    int common = NEUTRAL;
    for (int i = 0; i < 4 * (d - 1); i++) {
        int x, y;
        border_pixel(i, d, x0, y0, &x, &y);
        common = same(common, dwell(b, x, y));
    }
    if (common != DIFFERENT) {
        for (int y = y0; y < y0 + d; y++)
            for (int x = x0; x < x0 + d; x++) img[y * W + x] = common;
    } else if (level + 1 < MAX_LEVEL && d / SUBDIV >= MIN_SIZE) {
        int s = d / SUBDIV;
        for (int by = 0; by < SUBDIV; by++)
            for (int bx = 0; bx < SUBDIV; bx++) refine_host(img, b, x0 + bx * s, y0 + by * s, s, level + 1);
    } else {
        for (int y = y0; y < y0 + d; y++)
            for (int x = x0; x < x0 + d; x++) img[y * W + x] = dwell(b, x, y);
    }
}

int main() {
    Box b = {-1.5f, -1.0f, 0.5f, 1.0f};
    int *img, *launches;
    cudaMalloc(&img, W * H * sizeof(int));
    cudaMalloc(&launches, sizeof(int));
    cudaMemset(img, 0xff, W * H * sizeof(int));
    cudaMemset(launches, 0, sizeof(int));
    int d = W / SUBDIV;
    refine<<<dim3(SUBDIV, SUBDIV), dim3(BS, BS)>>>(img, b, 0, 0, d, 1, launches);
    cudaError_t sync = cudaDeviceSynchronize();
    std::vector<int> got(W * H), want(W * H, -1);
    int n_launches = 0;
    cudaMemcpy(got.data(), img, W * H * sizeof(int), cudaMemcpyDeviceToHost);
    cudaMemcpy(&n_launches, launches, sizeof(int), cudaMemcpyDeviceToHost);
    for (int by = 0; by < SUBDIV; by++)
        for (int bx = 0; bx < SUBDIV; bx++) refine_host(want, b, bx * d, by * d, d, 1);
    int wrong = 0;
    for (int i = 0; i < W * H; i++) wrong += got[i] != want[i];
    bool ok = sync == cudaSuccess && wrong == 0 && n_launches > 16 && n_launches < (1 << 20);
    printf("%s adaptive refinement %dx%d: sync=%d wrong=%d device_launches=%d\n", ok ? "PASS" : "FAIL", W, H,
           (int)sync, wrong, n_launches);
    return ok ? 0 : 1;
}

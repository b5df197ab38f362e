// cub device radix sort and block-wide primitives (load, radix sort, scan, reduce, exchange).
#include <cub/cub.cuh>

void device_sort(unsigned *d_keys_in, unsigned *d_keys_out, float *d_vin, float *d_vout, int n) {
  void *tmp = nullptr;
  size_t bytes = 0;
  cub::DeviceRadixSort::SortPairs(tmp, bytes, d_keys_in, d_keys_out, d_vin, d_vout, n);
  cub::DeviceRadixSort::SortKeysDescending(tmp, bytes, d_keys_in, d_keys_out, n);
}

template <int THREADS, int ITEMS>
__global__ void block_kernel(const int *in, int *out, unsigned long long *sums) {
  using Load = cub::BlockLoad<int, THREADS, ITEMS, cub::BLOCK_LOAD_TRANSPOSE>;
  using Sort = cub::BlockRadixSort<int, THREADS, ITEMS>;
  using Scan = cub::BlockScan<int, THREADS>;
  using Reduce = cub::BlockReduce<unsigned long long, THREADS>;
  using Store = cub::BlockStore<int, THREADS, ITEMS, cub::BLOCK_STORE_WARP_TRANSPOSE>;
  __shared__ union {
    typename Load::TempStorage load;
    typename Sort::TempStorage sort;
    typename Scan::TempStorage scan;
    typename Reduce::TempStorage reduce;
    typename Store::TempStorage store;
  } tmp;
  int items[ITEMS];
  Load(tmp.load).Load(in + blockIdx.x * THREADS * ITEMS, items);
  __syncthreads();
  Sort(tmp.sort).Sort(items);
  __syncthreads();
  Scan(tmp.scan).ExclusiveSum(items, items);
  __syncthreads();
  unsigned long long s = Reduce(tmp.reduce).Sum((unsigned long long)items[0]);
  if (threadIdx.x == 0) sums[blockIdx.x] = s;
  __syncthreads();
  Store(tmp.store).Store(out + blockIdx.x * THREADS * ITEMS, items);
}

template __global__ void block_kernel<128, 4>(const int *, int *, unsigned long long *);

// thrust sort, sort_by_key, inclusive/exclusive scan, reduce and transform over device vectors.
#include <thrust/device_vector.h>
#include <thrust/sort.h>
#include <thrust/scan.h>
#include <thrust/reduce.h>
#include <thrust/transform.h>
#include <thrust/functional.h>

struct square {
  __host__ __device__ float operator()(float x) const { return x * x; }
};

void run(int n) {
  thrust::device_vector<int> keys(n);
  thrust::device_vector<float> vals(n);
  thrust::sort(keys.begin(), keys.end());
  thrust::sort_by_key(keys.begin(), keys.end(), vals.begin(), thrust::greater<int>());
  thrust::inclusive_scan(keys.begin(), keys.end(), keys.begin());
  thrust::exclusive_scan(vals.begin(), vals.end(), vals.begin(), 0.0f);
  thrust::transform(vals.begin(), vals.end(), vals.begin(), square());
  volatile float s = thrust::reduce(vals.begin(), vals.end(), 0.0f, thrust::plus<float>());
  (void)s;
}

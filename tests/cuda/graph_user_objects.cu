// User objects (cudaUserObjectCreate/Retain/Release, cudaGraphRetainUserObject/
// cudaGraphReleaseUserObject). Expected behaviour from the CUDA documentation ("CUDA User
// Objects" in the programming guide, cuda.h's cuUserObjectCreate): the destructor runs once,
// when the last reference goes, whoever owns it (the program, a graph, a clone of a graph, an
// executable graph, which keeps its references while it exists); CU_GRAPH_USER_OBJECT_MOVE
// hands the caller's references to the graph; flags other than
// cudaUserObjectNoDestructorSync, zero counts and a NULL destructor are cudaErrorInvalidValue,
// as is releasing from a graph more references than it owns.
#include <atomic>
#include <thread>
#include "check.h"

static std::atomic<int> destroyed[8];
static void CUDART_CB destroy(void* p) { destroyed[(long)p]++; }

// The destructor may run on another thread after the last release; wait a little for it.
static int wait_destroyed(int k) {
  for (int i = 0; i < 2000 && destroyed[k] == 0; i++)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return destroyed[k];
}

__global__ void inc(int* p) { atomicAdd(p, 1); }

int main() {
  CHECK(cudaFree(0));
  cudaUserObject_t o;
  // Argument checks.
  EXPECT_EQ(cudaUserObjectCreate(&o, (void*)0, destroy, 1, 0), cudaErrorInvalidValue);
  EXPECT_EQ(cudaUserObjectCreate(&o, (void*)0, destroy, 0, cudaUserObjectNoDestructorSync),
            cudaErrorInvalidValue);
  EXPECT_EQ(cudaUserObjectCreate(&o, (void*)0, nullptr, 1, cudaUserObjectNoDestructorSync),
            cudaErrorInvalidValue);
  cudaGetLastError();

  // 0: owned by the program only; retain 2, release 3 -> destroyed once.
  CHECK(cudaUserObjectCreate(&o, (void*)0, destroy, 1, cudaUserObjectNoDestructorSync));
  CHECK(cudaUserObjectRetain(o, 2));
  EXPECT_EQ(cudaUserObjectRetain(o, 0), cudaErrorInvalidValue);
  cudaGetLastError();
  CHECK(cudaUserObjectRelease(o, 2));
  EXPECT_EQ(destroyed[0].load(), 0);
  CHECK(cudaUserObjectRelease(o, 1));
  EXPECT_EQ(wait_destroyed(0), 1);

  // 1: a graph's reference outlives the program's; destroying the graph destroys the object.
  cudaGraph_t g;
  CHECK(cudaGraphCreate(&g, 0));
  CHECK(cudaUserObjectCreate(&o, (void*)1, destroy, 1, cudaUserObjectNoDestructorSync));
  CHECK(cudaGraphRetainUserObject(g, o, 1, 0));
  EXPECT_EQ(cudaGraphRetainUserObject(g, o, 1, 7), cudaErrorInvalidValue);
  cudaGetLastError();
  CHECK(cudaUserObjectRelease(o, 1));
  EXPECT_EQ(destroyed[1].load(), 0);
  // Releasing more than the graph owns.
  EXPECT_EQ(cudaGraphReleaseUserObject(g, o, 2), cudaErrorInvalidValue);
  cudaGetLastError();
  CHECK(cudaGraphDestroy(g));
  EXPECT_EQ(wait_destroyed(1), 1);

  // 2: moved references, a clone, and an executable graph that keeps its own.
  int* d;
  CHECK(cudaMalloc(&d, sizeof(int)));
  CHECK(cudaMemset(d, 0, sizeof(int)));
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  inc<<<1, 1, 0, s>>>(d);
  CHECK(cudaStreamEndCapture(s, &g));
  CHECK(cudaUserObjectCreate(&o, (void*)2, destroy, 3, cudaUserObjectNoDestructorSync));
  CHECK(cudaGraphRetainUserObject(g, o, 3, cudaGraphUserObjectMove));  // the program owns none now
  cudaGraph_t c;
  CHECK(cudaGraphClone(&c, g));
  cudaGraphExec_t e;
  CHECK(cudaGraphInstantiate(&e, g, 0));
  CHECK(cudaGraphReleaseUserObject(g, o, 3));
  CHECK(cudaGraphDestroy(c));
  CHECK(cudaGraphDestroy(g));
  CHECK(cudaGraphLaunch(e, s));
  CHECK(cudaGraphLaunch(e, s));
  CHECK(cudaStreamSynchronize(s));
  EXPECT_EQ(destroyed[2].load(), 0);  // the executable graph still holds references
  CHECK(cudaGraphExecDestroy(e));
  EXPECT_EQ(wait_destroyed(2), 1);
  int h = 0;
  CHECK(cudaMemcpy(&h, d, sizeof(int), cudaMemcpyDeviceToHost));
  EXPECT_EQ(h, 2);

  // 3: a child graph node's copy of a graph owns references too.
  cudaGraph_t child, parent;
  CHECK(cudaGraphCreate(&child, 0));
  CHECK(cudaGraphCreate(&parent, 0));
  CHECK(cudaUserObjectCreate(&o, (void*)3, destroy, 1, cudaUserObjectNoDestructorSync));
  CHECK(cudaGraphRetainUserObject(child, o, 1, cudaGraphUserObjectMove));
  cudaGraphNode_t n;
  CHECK(cudaGraphAddChildGraphNode(&n, parent, nullptr, 0, child));
  CHECK(cudaGraphDestroy(child));
  EXPECT_EQ(destroyed[3].load(), 0);
  CHECK(cudaGraphDestroy(parent));
  EXPECT_EQ(wait_destroyed(3), 1);

  for (int k = 0; k < 4; k++) EXPECT_EQ(destroyed[k].load(), 1);
  if (expect_failures) return 1;
  printf("PASS\n");
  return 0;
}

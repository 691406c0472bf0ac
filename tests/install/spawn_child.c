/* spawn_child COMMAND [ARGS...]: an OpenCL program that starts another one. It
 * initialises OpenCL first (clGetPlatformIDs, as any OpenCL program does early on), which
 * is when ocl-icd cuts OPENCL_LAYERS down to its first element in this process's
 * environment; then it runs COMMAND as a child with that environment and exits with the
 * child's status. Links libOpenCL only. */
#include <CL/cl.h>

#include <spawn.h>
#include <stdio.h>
#include <sys/wait.h>

extern char **environ;

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: spawn_child COMMAND [ARGS...]\n");
    return 2;
  }
  cl_uint platforms = 0;
  if (clGetPlatformIDs(0, NULL, &platforms) != CL_SUCCESS || platforms == 0) {
    fprintf(stderr, "spawn_child: no OpenCL platform\n");
    return 1;
  }
  pid_t child;
  if (posix_spawnp(&child, argv[1], NULL, NULL, argv + 1, environ) != 0) {
    perror("spawn_child: posix_spawnp");
    return 1;
  }
  int status;
  if (waitpid(child, &status, 0) != child) {
    perror("spawn_child: waitpid");
    return 1;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

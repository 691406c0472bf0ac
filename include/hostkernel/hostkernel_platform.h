/* What both hostkernel C headers need (as cl_platform.h is for cl.h and cl_ext.h): the
 * OpenCL headers at the version hostkernel targets, and HK_API, which exports a function
 * from libhostkernel.so (the library is built with hidden visibility). */
#ifndef HOSTKERNEL_HOSTKERNEL_PLATFORM_H
#define HOSTKERNEL_HOSTKERNEL_PLATFORM_H

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 300
#endif
#include <CL/cl.h>

#if defined(__GNUC__)
#define HK_API __attribute__((visibility("default")))
#else
#define HK_API
#endif

#endif /* HOSTKERNEL_HOSTKERNEL_PLATFORM_H */

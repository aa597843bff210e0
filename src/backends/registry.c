/* Stand-ins for the backends this build does not include. */
#include "backends/backend.h"

#ifndef KRYL_HAVE_OPENMP
const kryl_backend_ops *kryl_backend_omp(void) { return NULL; }
#endif

#ifndef KRYL_HAVE_CUDA
const kryl_backend_ops *kryl_backend_cuda(void) { return NULL; }
bool kryl_cuda_device_present(void) { return false; }
#endif

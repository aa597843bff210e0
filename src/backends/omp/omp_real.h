/* Token pasting for the omp kernel templates: a file that includes a
 * template defines REAL (the element type), SUFFIX (the name suffix, e.g.
 * `_double`) and whatever else that template names first; OMP_FN(name)
 * then names one variant. */
#ifndef KRYL_BACKENDS_OMP_OMP_REAL_H
#define KRYL_BACKENDS_OMP_OMP_REAL_H

#define OMP_CAT2_(a, b) a##b
#define OMP_CAT_(a, b)  OMP_CAT2_(a, b)
#define OMP_FN(name)    OMP_CAT_(name, SUFFIX)

#endif

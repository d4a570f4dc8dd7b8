/* omp_env.h - the dy2st command's default OpenMP wait policy (see omp_env.c). */
#ifndef D2_TOOLS_OMP_ENV_H
#define D2_TOOLS_OMP_ENV_H

/* The GOMP_SPINCOUNT the dy2st command runs with when the user sets neither it nor
 * OMP_WAIT_POLICY. */
#define D2_OMP_DEFAULT_SPINCOUNT "300"

/* Called first in main: when libgomp is loaded and the environment sets neither
 * OMP_WAIT_POLICY nor GOMP_SPINCOUNT, sets GOMP_SPINCOUNT=D2_OMP_DEFAULT_SPINCOUNT and
 * executes this program again with the same argv (same process, open files and the rest of
 * the environment). Returns only when it did not re-execute. */
void d2_omp_env_default(char **argv);

#endif

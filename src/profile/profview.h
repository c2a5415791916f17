#ifndef BWBUILD_PROFVIEW_H
#define BWBUILD_PROFVIEW_H
/* The profile as plain data (profile/profview.c). */
#include "profile/profile.h"

struct json;
struct strvec;

/* A feature set ON, or left to the tree's default, which is ON for these. */
int profile_feature_on(const struct profile *p, enum feature f);
/* What every CUDA library of a wheel built from `p` must carry: sm_XY SASS and compute_XY PTX. */
void profile_targets(const struct profile *p, struct strvec *sass, struct strvec *ptx);
/* The profile as JSON: the manifest's and `bwbuild plan --json`'s "profile". */
struct json *profile_json(const struct profile *p);

#endif

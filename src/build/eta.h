#ifndef BWBUILD_ETA_H
#define BWBUILD_ETA_H

#include <stddef.h>

/*
 * The work ahead of a ninja build, weighted by kind, so that the ETA is
 * not fooled by the order of the steps: v2.6.0 starts with ~4,500 C
 * micro-kernels of a few hundred ms each and ends with CUDA units of
 * minutes (a finished-steps rate said "9 minutes" for a build of hours).
 * Made from `ninja -n` (one "[i/N] DESCRIPTION" line per edge still to
 * run); each finished edge's line adds its weight to `done`.
 */
struct eta_plan {
	char **desc;   /* sorted descriptions */
	double *w;     /* their weights */
	size_t n;
	double total;  /* the weight of every edge listed */
	double done;   /* the weight of the edges finished so far */
};

/* The relative cost of an edge by its ninja description (pure). */
double eta_weight(const char *desc);
/* Parse `ninja -n` output into `e` (zeroed first); the number of edges. */
size_t eta_plan_parse(struct eta_plan *e, const char *text);
/* An edge finished: its weight counts as done (unknown descriptions count their kind's weight). */
void eta_plan_done(struct eta_plan *e, const char *desc);
/*
 * Seconds left: elapsed x (weight left / weight done) once some weight is
 * done, else the finished-steps rate (done of total steps in `elapsed`).
 */
double eta_seconds(const struct eta_plan *e, double elapsed, int done, int total);
void eta_plan_release(struct eta_plan *e);

#endif

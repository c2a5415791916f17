#ifndef BWBUILD_VERSION_H
#define BWBUILD_VERSION_H

/* bwbuild's own version: --version, the manifest's generator and inputs. */
#ifndef BWBUILD_VERSION
#define BWBUILD_VERSION "0.1.0"
#endif

#endif

#ifndef BWBUILD_YDOC_H
#define BWBUILD_YDOC_H

#include <stddef.h>

struct loc;
struct pnode;

/*
 * The YAML reader (src/profile/ydoc.c, the only file that includes
 * <yaml.h>): a document into a tree of located nodes, bounded in depth and
 * size, duplicate keys refused. Profiles are read through it (profload.c);
 * other files (patches/<project>/index.yaml) through the ynode_* calls
 * below.
 */

/* Parse a YAML document into a tree and free it (the fuzz target's entry); -1 after reporting. */
int ydoc_parse_buffer(const char *name, const char *data, size_t len);

/*
 * A YAML file as maps, lists and strings, each with its file:line:col.
 * -1/NULL after reporting a syntax error; the top level must be a mapping.
 */
struct pnode *ydoc_load(const char *path);
void ydoc_free(struct pnode *n);
const struct pnode *ynode_get(const struct pnode *map, const char *key);
size_t ynode_len(const struct pnode *n);
const struct pnode *ynode_at(const struct pnode *n, size_t i);
const char *ynode_key_at(const struct pnode *map, size_t i);
const char *ynode_str(const struct pnode *n);   /* NULL unless a scalar */
int ynode_is_list(const struct pnode *n);
const struct loc *ynode_loc(const struct pnode *n);
const struct loc *ynode_key_loc(const struct pnode *map, size_t i);

#endif

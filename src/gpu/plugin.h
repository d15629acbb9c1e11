/* src/gpu/plugin.h: loading plugins (compare_plugin.h) into the catalog. */
#ifndef COMPARE_PLUGIN_LOADER_H
#define COMPARE_PLUGIN_LOADER_H

#include <stddef.h>

/* dlopens `path`, checks its ABI and every variant row, and adds them to the
 * catalog (src/gpu/op.h). No CUDA call. Returns 0, or 2 with a message naming
 * the plugin (a missing file, a missing symbol with dlerror's text, an ABI
 * mismatch, a duplicate or invalid name, an unknown op, a missing launcher). */
int plugin_load(const char *path, char *err, size_t err_len);

#endif

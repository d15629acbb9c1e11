/* src/core/list.h: `compare --list` (plain and --format json). */
#ifndef COMPARE_LIST_H
#define COMPARE_LIST_H

#include <stdio.h>

#include "catalog.h"
#include "cli.h"

/* The ops (each with its axes' names) and the visible variants, two tables. */
void list_print(FILE *f, const cli_options *o, const catalog *cat);
/* {"ops": [{name, unit, ref_library, best_library, about, axes: [{name,
 * kind, defaults, min/max or values, option, help}], types, variants:
 * [{name, kind, math, source, about}]}]}. */
void list_print_json(FILE *f, const cli_options *o, const catalog *cat);
/* The element types of op `op` into out[0..cap): its types, or (one type,
 * each row's math its own) the maths of its visible rows, each once. */
int list_op_types(const cli_options *o, const catalog *cat, int op, const char **out, int cap);

#endif

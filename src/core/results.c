#include "results.h"

#include <stdlib.h>

void results_row_free(result_row *r)
{
    free(r->samples_ms);
    r->samples_ms = NULL;
}

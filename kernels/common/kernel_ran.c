#include "kernel_ran.h"

#include <stddef.h>

static _Thread_local const char *kernel_ran_kernel;
static _Thread_local const char *kernel_ran_why;

void kernel_ran_note(const char *kernel, const char *fallback_reason)
{
    kernel_ran_kernel = kernel;
    kernel_ran_why = fallback_reason;
}

const char *kernel_ran_name(void) { return kernel_ran_kernel; }

const char *kernel_ran_reason(void) { return kernel_ran_why; }

void kernel_ran_clear(void)
{
    kernel_ran_kernel = NULL;
    kernel_ran_why = NULL;
}

#include "status.h"

#include <stdarg.h>
#include <stdio.h>

/* one buffer per thread: devices may run on threads of their own */
static _Thread_local char status_buf[1024];

const char *status_name(status_t s)
{
    switch (s) {
    case STATUS_OK: return "ok";
    case STATUS_FAIL: return "FAIL";
    case STATUS_ERROR: return "ERROR";
    case STATUS_SKIP: return "SKIP";
    }
    return "?";
}

void status_set_message(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(status_buf, sizeof status_buf, fmt, ap);
    va_end(ap);
}

const char *status_message(void) { return status_buf; }

void status_clear(void) { status_buf[0] = '\0'; }

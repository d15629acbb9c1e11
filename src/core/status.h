/* src/core/status.h: the outcome of a variant (ok / FAIL / ERROR / SKIP) and
 * the one message buffer that explains the last error. No CUDA here: the GPU
 * side's checks (src/gpu/check.h) write into this buffer. */
#ifndef COMPARE_STATUS_H
#define COMPARE_STATUS_H

typedef enum {
    STATUS_OK = 0,    /* ran and passed verification */
    STATUS_FAIL = 1,  /* ran, wrong result */
    STATUS_ERROR = 2, /* a CUDA / library error */
    STATUS_SKIP = 3   /* not run (reason in the message) */
} status_t;

/* "ok", "FAIL", "ERROR", "SKIP". */
const char *status_name(status_t s);

/* Records a free-form message (printf-like), replacing the last one. */
void status_set_message(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The last recorded message ("" if none). */
const char *status_message(void);
/* Forgets the message. */
void status_clear(void);

#endif

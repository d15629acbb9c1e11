/* kernels/common/kernel_ran.h: which kernel a launcher really ran.
 *
 * A launcher that chooses among kernels (a tile shape per size, a fallback
 * when a shape, an alignment or a cooperative launch is refused) names the
 * kernel it launched, and why when it is not the variant's own kernel:
 *     kernel_ran_note("tuned_sk_128x256x8", NULL);
 *     kernel_ran_note("tf32_mma", "k not a multiple of 4");
 * The harness clears the note before the checked run and reads it after, so
 * every row names the kernel behind its figures (the CSV's `kernel` column)
 * and a fallback is shown, never silent. One note per thread (a device may
 * run on a thread of its own); the strings must be static. */
#ifndef KERNELS_COMMON_KERNEL_RAN_H
#define KERNELS_COMMON_KERNEL_RAN_H

#ifdef __cplusplus
extern "C" {
#endif

/* Records the kernel launched and, for a fallback, the reason (NULL: none). */
void kernel_ran_note(const char *kernel, const char *fallback_reason);
/* The last note since kernel_ran_clear (NULL when none was made). */
const char *kernel_ran_name(void);
const char *kernel_ran_reason(void);
void kernel_ran_clear(void);

#ifdef __cplusplus
}
#endif

#endif

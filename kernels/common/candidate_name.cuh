/* kernels/common/candidate_name.cuh: compile-time check that a candidate's
 * name says what its parameters are.
 *
 * Every tile-shape candidate (tuned and the TF32 kernels, their searches) is
 * one row of an X-macro table: its name, then its parameters. Results are
 * recorded and picks are made by name (e.g. -DSGEMM_TUNED_LARGE=NAME), so a
 * name that drifted from its parameters would silently time one shape under
 * another's name. Each table checks every row at compile time:
 *     static_assert(candidate_name_is(#NAME, #BM "x" #BN, ...), "...");
 * where the pieces are the name rebuilt from the parameters (stringized
 * numbers, and "" or a suffix for a flag). */
#ifndef KERNELS_COMMON_CANDIDATE_NAME_CUH
#define KERNELS_COMMON_CANDIDATE_NAME_CUH

/* s past the prefix p, or nullptr when s does not start with p */
static constexpr const char *candidate_name_skip(const char *s, const char *p)
{
    for (; *p; ++s, ++p)
        if (*s != *p)
            return nullptr;
    return s;
}

/* 1 if `name` is exactly the concatenation a b c d e */
static constexpr int candidate_name_is(const char *name, const char *a, const char *b = "",
                                       const char *c = "", const char *d = "", const char *e = "")
{
    const char *s = candidate_name_skip(name, a);
    s = s ? candidate_name_skip(s, b) : nullptr;
    s = s ? candidate_name_skip(s, c) : nullptr;
    s = s ? candidate_name_skip(s, d) : nullptr;
    s = s ? candidate_name_skip(s, e) : nullptr;
    return s && *s == '\0';
}

#endif

#include "testlib.h"

#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "peaks.h"
#include "results.h"

int test_passed = 0;
int test_failed = 0;

int test_finish(const char *name)
{
    printf("%s: %d passed, %d failed\n", name, test_passed, test_failed);
    return test_failed == 0 && test_passed > 0 ? 0 : 1;
}

int test_contains(const char *haystack, const char *needle) { return strstr(haystack, needle) != NULL; }

int test_count(const char *text, const char *needle)
{
    int n = 0;
    for (const char *p = strstr(text, needle); p; p = strstr(p + 1, needle)) n++;
    return n;
}

char *test_read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    long n;
    char *b;
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    b = malloc((size_t)(n > 0 ? n : 0) + 1);
    if (b && (n <= 0 || fread(b, 1, (size_t)n, f) != (size_t)n)) n = 0;
    if (b) b[n] = '\0';
    fclose(f);
    return b;
}

static double test_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

const char *test_signal_after_out;
int test_signal_repeat = 1;

void test_run(char *const argv[], char *const env[], double signal_after_s, int sig, double timeout_s,
              test_proc *p)
{
    int po[2], pe[2];
    size_t no = 0, ne = 0;
    pid_t pid;
    double t0 = test_now();
    int signalled = 0, killed = 0, open_o = 1, open_e = 1, st = 0;
    memset(p, 0, sizeof *p);
    p->status = -1;
    if (pipe(po) || pipe(pe)) return;
    fflush(stdout);
    fflush(stderr);
    pid = fork();
    if (pid < 0) return;
    if (pid == 0) {
        dup2(po[1], 1);
        dup2(pe[1], 2);
        close(po[0]);
        close(pe[0]);
        close(po[1]);
        close(pe[1]);
        for (int i = 0; env && env[i]; i++) {
            char kv[512];
            char *eq;
            snprintf(kv, sizeof kv, "%s", env[i]);
            eq = strchr(kv, '=');
            if (eq) {
                *eq = '\0';
                setenv(kv, eq + 1, 1);
            }
        }
        execv(argv[0], argv);
        _exit(127);
    }
    close(po[1]);
    close(pe[1]);
    while (open_o || open_e) {
        struct pollfd fds[2] = {{po[0], POLLIN, 0}, {pe[0], POLLIN, 0}};
        double el = test_now() - t0;
        if (signal_after_s > 0 && !signalled && el >= signal_after_s &&
            (!test_signal_after_out || strstr(p->out, test_signal_after_out))) {
            for (int k = 0; k < (test_signal_repeat > 1 ? test_signal_repeat : 1); k++) kill(pid, sig);
            signalled = 1;
        }
        if (!killed && el >= timeout_s) {
            kill(pid, SIGKILL);
            killed = 1;
        }
        if (poll(fds, 2, 50) < 0 && errno != EINTR) break;
        for (int i = 0; i < 2; i++) {
            if (!(fds[i].revents & (POLLIN | POLLHUP))) continue;
            char buf[4096];
            ssize_t r = read(fds[i].fd, buf, sizeof buf);
            if (r <= 0) {
                if (i == 0) open_o = 0;
                else open_e = 0;
                fds[i].fd = -1;
                continue;
            }
            char *dst = i == 0 ? p->out : p->err;
            size_t *n = i == 0 ? &no : &ne;
            size_t cap = (i == 0 ? sizeof p->out : sizeof p->err) - 1;
            size_t take = (size_t)r < cap - *n ? (size_t)r : cap - *n;
            memcpy(dst + *n, buf, take);
            *n += take;
        }
        if (!open_o && !open_e) break;
    }
    close(po[0]);
    close(pe[0]);
    waitpid(pid, &st, 0);
    if (WIFEXITED(st)) p->status = WEXITSTATUS(st);
    else if (WIFSIGNALED(st)) p->status = 128 + WTERMSIG(st);
}

int test_file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

int test_dir_entries(const char *dir)
{
    int n = 0;
    DIR *d = opendir(dir);
    struct dirent *e;
    if (!d) return -1;
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) n++;
    closedir(d);
    return n;
}

void test_h200_run_info(run_info *info, const char *device_name)
{
    memset(info, 0, sizeof *info);
    snprintf(info->timestamp, sizeof info->timestamp, "2026-01-02T03:04:05Z");
    info->git_commit = "0123456789ab";
    info->seed = 2026;
    info->l2_flush = 1;
    info->interleave = 1;
    snprintf(info->dev.name, sizeof info->dev.name, "%s", device_name);
    info->dev.cc_major = 9;
    info->dev.cc_minor = 0;
    info->dev.sms = 132;
    info->dev.sm_clock_khz = 1980000;
    info->dev.mem_clock_khz = 3201000;
    info->dev.bus_width_bits = 6016;
    info->dev.l2_bytes = 60LL << 20;
    info->dev.total_mem_bytes = 150080749568LL;
    info->dev.driver_version = 13000;
    info->dev.runtime_version = 13000;
    info->dev.cublas_version = 130100;
    peaks_fill(&info->dev); /* 128 lanes, 66.90816 TFLOP/s FP32, 4814.304 GB/s; the sm_90 tensor rates */
    info->dev.index = 0;
    snprintf(info->dev.uuid, sizeof info->dev.uuid, "GPU-00112233-4455-6677-8899-aabbccddeeff");
    snprintf(info->dev.pci_bus_id, sizeof info->dev.pci_bus_id, "0000:19:00.0");
    info->dev.max_sm_clock_mhz = 1980;
    snprintf(info->hostname, sizeof info->hostname, "h200-node");
    info->rank = -1;
}

// ---- a small RFC 4180 parser ------------------------------------------------

void test_csv_parse(const char *text, test_csv_doc *d)
{
    const char *p = text;
    memset(d, 0, sizeof *d);
    d->ok = 1;
    while (*p && d->nrec < TEST_CSV_MAX_RECORDS) {
        int r = d->nrec++;
        for (;;) {
            size_t cap = strlen(p) + 1, n = 0;
            char *f = malloc(cap);
            if (*p == '"') {
                p++;
                for (;;) {
                    if (*p == '\0') {
                        d->ok = 0; /* unterminated */
                        break;
                    }
                    if (*p == '"') {
                        if (p[1] == '"') {
                            f[n++] = '"';
                            p += 2;
                            continue;
                        }
                        p++;
                        break;
                    }
                    f[n++] = *p++;
                }
                if (*p != ',' && *p != '\n' && *p != '\r' && *p != '\0') d->ok = 0;
            } else {
                while (*p && *p != ',' && *p != '\n' && *p != '\r') {
                    if (*p == '"') d->ok = 0; /* a quote inside an unquoted field */
                    f[n++] = *p++;
                }
            }
            f[n] = '\0';
            if (d->nfield[r] < TEST_CSV_MAX_FIELDS) d->field[r][d->nfield[r]++] = f;
            else free(f);
            if (*p == ',') {
                p++;
                continue;
            }
            if (*p == '\r' && p[1] == '\n') p += 2;
            else if (*p == '\n') p++;
            else if (*p != '\0') d->ok = 0;
            break;
        }
    }
    if (*p)
        d->ok = 0; /* more records than TEST_CSV_MAX_RECORDS: not read whole */
}

void test_csv_doc_free(test_csv_doc *d)
{
    for (int r = 0; r < d->nrec; r++)
        for (int i = 0; i < d->nfield[r]; i++) free(d->field[r][i]);
}

/* The cell of record r in the column named `name` ("<missing>" if none). */
const char *test_csv_cell(const test_csv_doc *d, int r, const char *name)
{
    for (int i = 0; i < d->nfield[0]; i++)
        if (strcmp(d->field[0][i], name) == 0) return r < d->nrec && i < d->nfield[r] ? d->field[r][i] : "<missing>";
    return "<missing>";
}

void test_usage_error(const char *bin, const char *const *args, const char *needle)
{
    static test_proc p;
    char *argv[16] = {(char *)bin};
    char line[512] = "";
    int n = 1;
    for (; args[n - 1] && n < 15; n++) {
        argv[n] = (char *)args[n - 1];
        snprintf(line + strlen(line), sizeof line - strlen(line), " %s", args[n - 1]);
    }
    argv[n] = NULL;
    test_run(argv, NULL, 0, 0, 60.0, &p);
    CHECK(p.status == 2 && test_contains(p.err, needle), "compare%s: exit %d, \"%s\" lacks \"%s\"", line, p.status,
          p.err, needle);
}

#include "fleetlib.h"

#include <stdio.h>
#include <string.h>

int fleet_log_overlap(const char *path)
{
    /* open cases: (pid, device) -> running; a begin while another key runs overlaps */
    struct {
        int pid, dev, open;
    } key[64];
    int nkeys = 0, overlap = 0, cases = 0;
    char what[16];
    int pid, dev;
    double t;
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    while (fscanf(f, "%15s %d %d %lf", what, &pid, &dev, &t) == 4) {
        int k;
        for (k = 0; k < nkeys && !(key[k].pid == pid && key[k].dev == dev); k++) {}
        if (k == nkeys) {
            if (nkeys == 64) break;
            key[nkeys].pid = pid;
            key[nkeys].dev = dev;
            key[nkeys++].open = 0;
        }
        if (strcmp(what, "begin") == 0) {
            for (int j = 0; j < nkeys; j++)
                if (j != k && key[j].open) overlap = 1;
            key[k].open = 1;
        } else {
            key[k].open = 0;
            cases++;
        }
    }
    fclose(f);
    return cases ? overlap : -1;
}

#!/usr/bin/env python3
"""tests/ncu_sort_table.py: a Markdown table of the sort rows' kernel time from
`ncu --nvtx --csv --metrics gpu__time_duration.sum` over
`compare --ops sort --profile` (docs/tuning/library_rows.md says the command).

  python3 tests/ncu_sort_table.py NCU.csv

Per size, key type and variant: the sum of the kernels launched inside the
row's --profile NVTX range ("sort cub u32 16777216"), the percent of
thrust's, and the offset type of CUB's kernels (from their template names)."""
import csv, collections, re, sys
rows=list(csv.reader(open(sys.argv[1])))
hi=[i for i,r in enumerate(rows) if r and r[0]=='ID'][0]
h=rows[hi]
data=[dict(zip(h,r)) for r in rows[hi+1:] if len(r)==len(h)]
pp=h[4]
tot=collections.defaultdict(float); kern=collections.defaultdict(set)
for d in data:
    m=re.search(r'<default domain>:sort (\w+) (u32|f32) (\d+):',d[pp])
    if not m or d['Metric Name']!='gpu__time_duration.sum': continue
    key=(int(m.group(3)),m.group(2),m.group(1))
    tot[key]+=float(d['Metric Value'].replace(',',''))
    k=d['Kernel Name']; 
    mm=re.search(r'policy_hub<[^>]*?, (unsigned int|unsigned long long)>',k)
    kern[key].add((k.split('<')[0].replace('void ',''))+('<'+mm.group(1)+' offsets>' if mm else ''))
print("| elems | keys | variant | ncu time, us (sum of its kernels, one call) | % of thrust's kernels | offsets |")
print("|---:|---|---|---:|---:|---|")
for (n,t,v) in sorted(tot, key=lambda x:(x[0],x[1]!='u32',['thrust','cub','cub_i32','onesweep'].index(x[2]))):
    th=tot[(n,t,'thrust')]
    offs=sorted({re.search(r'<(.*) offsets>',x).group(1) for x in kern[(n,t,v)] if 'offsets' in x})
    print(f"| 2^{n.bit_length()-1} | {t} | {v} | {tot[(n,t,v)]/1e3:.1f} | {th/tot[(n,t,v)]*100:.1f} | {', '.join(offs) or 'own kernels'} |")

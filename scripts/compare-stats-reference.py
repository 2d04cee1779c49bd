import numpy as np, itertools, math
from scipy.stats import mannwhitneyu, PermutationMethod, norm
np.set_printoptions(precision=17)
a1=[1.1,2.3,0.7,3.9,2.8]; b1=[4.2,3.3,5.0,2.9,6.1,4.4]
r=mannwhitneyu(a1,b1,method="exact"); print("case1 exact", r.statistic, repr(r.pvalue))
a2=[3,3,4,5,5,5,7]; b2=[5,6,6,7,8,8,9]
r=mannwhitneyu(a2,b2,method=PermutationMethod(n_resamples=10**7)); print("case2 perm", r.statistic, repr(r.pvalue))
r=mannwhitneyu(a2,b2,method="asymptotic"); print("case2 asym", r.statistic, repr(r.pvalue))
rng=np.random.default_rng(5)
a3=np.round(rng.lognormal(np.log(40),0.1,25)).tolist(); b3=np.round(rng.lognormal(np.log(43),0.1,30)).tolist()
print("a3=",a3); print("b3=",b3)
r=mannwhitneyu(a3,b3,method="asymptotic",use_continuity=True); print("case3 asym", r.statistic, repr(r.pvalue))
r=mannwhitneyu([1,2,3],[4,5,6],method="exact"); print("case4 3v3", r.statistic, repr(r.pvalue))
r=mannwhitneyu([1,2,3,4],[5,6,7,8],method="exact"); print("case5 4v4", r.statistic, repr(r.pvalue))
# 20 vs 20 no ties exact
a6=[float(x) for x in range(1,40,2)]; b6=[float(x)+0.5 for x in range(4,44,2)]
r=mannwhitneyu(a6,b6,method="exact"); print("case6 20v20", r.statistic, repr(r.pvalue))
# HL + Moses CI, brute force
def hl(a,b,alpha):
    d=np.sort(np.subtract.outer(np.array(b),np.array(a)).ravel()); m,n=len(a),len(b); mn=m*n
    shift=float(np.median(d))
    if m<=20 and n<=20:
        # exact null distribution of U by enumerating rank subsets
        N=m+n; counts={}
        for c in itertools.combinations(range(1,N+1),m):
            u=sum(c)-m*(m+1)//2; counts[u]=counts.get(u,0)+1
        tot=math.comb(N,m); k=0; cum=0
        while True:
            cum_k=sum(v for u,v in counts.items() if u<=k)/tot  # P(U<=k)
            if k<mn//2 and cum_k<=alpha/2: k+=1
            else: break
    else:
        k=math.floor(mn/2-norm.isf(alpha/2)*math.sqrt(mn*(m+n+1)/12))
    return shift,k,(float(d[k-1]),float(d[mn-k])) if k>=1 else None
print("hl1", hl(a1,b1,0.05))
print("hl2", hl(a2,b2,0.05))
print("hl3", hl(a3,b3,0.05))

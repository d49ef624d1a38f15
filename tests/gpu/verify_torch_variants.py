"""Diagnostic: which rounding of the scalars does torch.isclose use for fp16/bf16
on this device?  Prints mismatch counts of four emulations; the one with
zeros everywhere is the semantics.  Usage: python3 verify_torch_variants.py cuda"""
import torch, sys
dev = sys.argv[1] if len(sys.argv) > 1 else 'cpu'
torch.manual_seed(2)
for dt in (torch.bfloat16, torch.float16):
  rnd=lambda x: x.to(dt).float()
  for n in (1000, 65541, 1000003):
    r=(torch.randn(n)*0.5).to(dt); c=(r.double()+torch.randn(n).double()*0.01*(1+r.double().abs())).to(dt)
    r=r.to(dev); c=c.to(dev)
    rf=r.float(); cf=c.float()
    actual=rnd(rf-cf).abs()
    for atol, rtol in ((1e-2,1e-2),(1e-3,1.6e-2),(3e-3,7e-3)):
      cl=torch.isclose(r,c,rtol=rtol,atol=atol)
      res=[]
      for mr in (0,1):
        for ar in (0,1):
          rt=torch.tensor(rtol,dtype=torch.float32,device=dev); at=torch.tensor(atol,dtype=torch.float32,device=dev)
          if mr: rt=rnd(rt)
          if ar: at=rnd(at)
          allowed=rnd(at+rnd(rt*cf).abs())
          em=(rf==cf)|(torch.isfinite(actual)&(actual<=allowed))
          res.append((cl!=em).sum().item())
      print(dev, dt, n, atol, rtol, 'mismatch [mulF+addF, mulF+addR, mulR+addF, mulR+addR]:', res)

"""Where a self-play forward pass's time goes on the GPU (issue 46, third H200 session).

The ReMATCH net of configs/rematch.toml rebuilt in PyTorch (51 planes on a 5x5 grid, a 3x3
stem and 4 residual blocks of 64 channels with batch norm and the board mask, a 32-channel
policy head to 456 logits, a W/D/L head), eval mode, at the batch sizes self-play runs.
Each part is timed alone with CUDA synchronisation: the copy in (ordinary vs pinned memory,
f32 vs bf16), the net (fp32 NCHW, TF32 on/off, channels-last, bf16, a CUDA graph replay),
the copy back (ordinary vs pinned). Prints ms per pass and positions/s."""
import time
import torch
import torch.nn as nn
import torch.nn.functional as F

dev = "cuda"
torch.backends.cudnn.benchmark = True
P, S, A = 51, 5, 456
mask = torch.ones(1, 1, S, S, device=dev)
mask[0, 0, 0, 3:] = 0; mask[0, 0, 1, 4] = 0; mask[0, 0, 3, 0] = 0; mask[0, 0, 4, :2] = 0


class Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.c1, self.b1 = nn.Conv2d(c, c, 3, padding=1, bias=False), nn.BatchNorm2d(c)
        self.c2, self.b2 = nn.Conv2d(c, c, 3, padding=1, bias=False), nn.BatchNorm2d(c)

    def forward(self, x, m):
        y = F.relu(self.b1(self.c1(x))) * m
        y = self.b2(self.c2(y)) * m
        return F.relu(x + y)


class Net(nn.Module):
    def __init__(self, blocks, c):
        super().__init__()
        self.stem, self.sb = nn.Conv2d(P, c, 3, padding=1, bias=False), nn.BatchNorm2d(c)
        self.blocks = nn.ModuleList([Block(c) for _ in range(blocks)])
        self.pc, self.pb, self.pf = nn.Conv2d(c, 32, 1), nn.BatchNorm2d(32), nn.Linear(32 * S * S, A)
        self.vc, self.vb = nn.Conv2d(c, 4, 1), nn.BatchNorm2d(4)
        self.v1, self.v2 = nn.Linear(4 * S * S, 128), nn.Linear(128, 3)

    def forward(self, x):
        m = mask.to(x.dtype)
        x = F.relu(self.sb(self.stem(x))) * m
        for b in self.blocks:
            x = b(x, m)
        p = (F.relu(self.pb(self.pc(x))) * m).flatten(1)
        v = (F.relu(self.vb(self.vc(x))) * m).flatten(1)
        return self.pf(p), self.v2(F.relu(self.v1(v)))


def timed(f, n=40):
    for _ in range(5):
        f()
    torch.cuda.synchronize()
    t = time.perf_counter()
    for _ in range(n):
        f()
    torch.cuda.synchronize()
    return (time.perf_counter() - t) / n * 1e3


def row(name, ms, n):
    print(f"{name:<48} {ms:8.3f} ms  {n / ms * 1e3:12,.0f} positions/s", flush=True)


print(torch.__version__, torch.cuda.get_device_name(0))
for n in (256, 1024, 2048):
    x = torch.rand(n, P, S, S)
    xp = x.pin_memory()
    xb = x.to(torch.bfloat16).pin_memory()
    out = torch.rand(n, A + 3, device=dev)
    outp = torch.empty(n, A + 3).pin_memory()
    print(f"-- batch {n}: input {x.numel() * 4 / 1e6:.1f} MB, output {out.numel() * 4 / 1e6:.1f} MB")
    row("copy in, ordinary memory", timed(lambda: x.to(dev)), n)
    row("copy in, pinned", timed(lambda: xp.to(dev, non_blocking=True)), n)
    row("copy in, pinned bf16", timed(lambda: xb.to(dev, non_blocking=True)), n)
    row("copy back, ordinary memory", timed(lambda: out.cpu()), n)
    row("copy back, pinned", timed(lambda: outp.copy_(out, non_blocking=True)), n)
    for blocks, c in ((4, 64), (10, 128)):
        net = Net(blocks, c).to(dev).eval()
        xd = x.to(dev)
        with torch.no_grad():
            torch.backends.cudnn.allow_tf32 = True
            row(f"{blocks}x{c} fp32 (TF32 convs, libtorch's default)", timed(lambda: net(xd)), n)
            torch.backends.cudnn.allow_tf32 = False
            row(f"{blocks}x{c} fp32 (no TF32)", timed(lambda: net(xd)), n)
            torch.backends.cudnn.allow_tf32 = True
            netcl = net.to(memory_format=torch.channels_last)
            xcl = xd.to(memory_format=torch.channels_last)
            row(f"{blocks}x{c} fp32 channels-last", timed(lambda: netcl(xcl)), n)
            nb = Net(blocks, c).to(dev).eval().to(torch.bfloat16)
            xbd = xd.to(torch.bfloat16)
            row(f"{blocks}x{c} bf16", timed(lambda: nb(xbd)), n)
            nbcl = nb.to(memory_format=torch.channels_last)
            xbcl = xbd.to(memory_format=torch.channels_last)
            row(f"{blocks}x{c} bf16 channels-last", timed(lambda: nbcl(xbcl)), n)
            try:
                net = Net(blocks, c).to(dev).eval()
                g = torch.cuda.CUDAGraph()
                s = torch.cuda.Stream()
                s.wait_stream(torch.cuda.current_stream())
                with torch.cuda.stream(s):
                    for _ in range(3):
                        net(xd)
                torch.cuda.current_stream().wait_stream(s)
                with torch.cuda.graph(g):
                    gout = net(xd)
                row(f"{blocks}x{c} fp32, CUDA graph replay", timed(lambda: g.replay()), n)
                bg = torch.cuda.CUDAGraph()
                with torch.cuda.graph(bg):
                    bout = nb(xbd)
                row(f"{blocks}x{c} bf16, CUDA graph replay", timed(lambda: bg.replay()), n)
            except RuntimeError as e:
                print(f"{blocks}x{c} CUDA graph failed: {e}")

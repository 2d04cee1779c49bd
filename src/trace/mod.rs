//! PyTorch operator trace import (THAPI babeltrace2 text, torch.profiler Chrome JSON).

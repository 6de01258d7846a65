"""The small reference models the suite times.

A ResNet-style CNN (convolution-bound), an LSTM classifier (small matrix products,
memory-bound) and a pre-norm transformer block stack with a causal mask (between the two)
— the three training workload families the advice distinguishes — and a Llama-shaped
decoder (grouped-query attention, SwiGLU, RMSNorm) for LLM token generation with a KV
cache and for prompt processing.
"""

from __future__ import annotations

import torch
from torch import nn

__all__ = ["BasicBlock", "LSTMClassifier", "LlamaDecoder", "ResNetCNN", "TransformerLM"]

KVCache = tuple[torch.Tensor, torch.Tensor]  # one layer's keys and values


class BasicBlock(nn.Module):
    """Two 3x3 convolutions with batch norm and a residual shortcut (1x1 conv when shapes change)."""

    def __init__(self, cin: int, cout: int, stride: int = 1):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.shortcut: nn.Module = nn.Identity()
        if stride != 1 or cin != cout:
            self.shortcut = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = torch.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return torch.relu(out + self.shortcut(x))


class ResNetCNN(nn.Module):
    """A small ResNet for 32x32 images: stem, three stages (width, 2x, 4x), pooling, classifier."""

    def __init__(self, width: int = 64, classes: int = 10):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, width, 3, 1, 1, bias=False), nn.BatchNorm2d(width), nn.ReLU())
        self.stages = nn.Sequential(
            BasicBlock(width, width),
            BasicBlock(width, 2 * width, stride=2),
            BasicBlock(2 * width, 4 * width, stride=2),
        )
        self.head = nn.Linear(4 * width, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.stages(self.stem(x))
        return self.head(torch.flatten(nn.functional.adaptive_avg_pool2d(x, 1), 1))


class LSTMClassifier(nn.Module):
    """A stacked LSTM over a sequence of feature vectors; the last step's state is classified."""

    def __init__(self, input_size: int, hidden: int, layers: int, classes: int):
        super().__init__()
        self.lstm = nn.LSTM(input_size, hidden, num_layers=layers, batch_first=True)
        self.head = nn.Linear(hidden, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out, _ = self.lstm(x)
        return self.head(out[:, -1])


class TransformerLM(nn.Module):
    """Token and position embeddings, pre-norm encoder blocks with a causal mask, an LM head."""

    mask: torch.Tensor  # a buffer (register_buffer), moved with the model, not trained

    def __init__(self, vocab: int, d_model: int, heads: int, layers: int, seq_len: int):
        super().__init__()
        self.tokens = nn.Embedding(vocab, d_model)
        self.positions = nn.Embedding(seq_len, d_model)
        block = nn.TransformerEncoderLayer(d_model, heads, 4 * d_model, dropout=0.0, batch_first=True,
                                           norm_first=True)
        self.blocks = nn.TransformerEncoder(block, layers, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab)
        mask = nn.Transformer.generate_square_subsequent_mask(seq_len)
        self.register_buffer("mask", mask, persistent=False)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        seq = tokens.shape[1]
        x = self.tokens(tokens) + self.positions(torch.arange(seq, device=tokens.device))
        x = self.blocks(x, mask=self.mask[:seq, :seq], is_causal=True)
        return self.head(self.norm(x))


class _LlamaLayer(nn.Module):
    def __init__(self, hidden: int, heads: int, kv_heads: int, ffn: int):
        super().__init__()
        self.heads, self.kv_heads, self.head_dim = heads, kv_heads, hidden // heads
        self.attn_norm, self.mlp_norm = nn.RMSNorm(hidden), nn.RMSNorm(hidden)
        self.qkv = nn.Linear(hidden, (heads + 2 * kv_heads) * self.head_dim, bias=False)
        self.out = nn.Linear(heads * self.head_dim, hidden, bias=False)
        self.gate_up = nn.Linear(hidden, 2 * ffn, bias=False)
        self.down = nn.Linear(ffn, hidden, bias=False)

    def forward(self, x: torch.Tensor, cache: KVCache | None) -> torch.Tensor:
        batch, seq, _ = x.shape
        kv_width = self.kv_heads * self.head_dim
        q, k, v = self.qkv(self.attn_norm(x)).split([self.heads * self.head_dim, kv_width, kv_width], dim=-1)
        q = q.view(batch, seq, self.heads, self.head_dim).transpose(1, 2)
        k = k.view(batch, seq, self.kv_heads, self.head_dim).transpose(1, 2)
        v = v.view(batch, seq, self.kv_heads, self.head_dim).transpose(1, 2)
        if cache is not None:  # decode: the new token attends to the cached window and itself
            k, v = torch.cat([cache[0], k], dim=2), torch.cat([cache[1], v], dim=2)
        attn = nn.functional.scaled_dot_product_attention(q, k, v, is_causal=cache is None, enable_gqa=True)
        x = x + self.out(attn.transpose(1, 2).reshape(batch, seq, -1))
        gate, up = self.gate_up(self.mlp_norm(x)).chunk(2, dim=-1)
        return x + self.down(nn.functional.silu(gate) * up)


class LlamaDecoder(nn.Module):
    """A Llama-shaped decoder with random weights: every weight is read once per generated token."""

    def __init__(self, vocab: int, hidden: int, layers: int, heads: int, kv_heads: int, ffn: int):
        super().__init__()
        self.kv_heads, self.head_dim = kv_heads, hidden // heads  # the KV cache's shape per layer
        self.embed = nn.Embedding(vocab, hidden)
        self.layers = nn.ModuleList(_LlamaLayer(hidden, heads, kv_heads, ffn) for _ in range(layers))
        self.norm = nn.RMSNorm(hidden)
        self.head = nn.Linear(hidden, vocab, bias=False)

    def forward(self, tokens: torch.Tensor, caches: list[KVCache] | None = None) -> torch.Tensor:
        x = self.embed(tokens)
        for i, layer in enumerate(self.layers):
            x = layer(x, caches[i] if caches is not None else None)
        return self.head(self.norm(x[:, -1:]))

    def random_cache(self, context: int, dtype: torch.dtype, device: torch.device) -> list[KVCache]:
        """A filled KV cache of ``context`` tokens per layer (random values, as after a prompt)."""
        shape = (1, self.kv_heads, context, self.head_dim)

        def filled() -> torch.Tensor:
            return torch.randn(shape, dtype=dtype, device=device)

        return [(filled(), filled()) for _ in self.layers]

    def bytes_per_token(self, context: int, element_bytes: int) -> int:
        """Weights read per generated token (one embedding row, not the table) plus the KV cache."""
        table = self.embed.weight
        weights = sum(p.numel() for p in self.parameters()) - table.numel() + table.shape[1]
        cache = 2 * len(self.layers) * self.kv_heads * self.head_dim * context
        return (weights + cache) * element_bytes

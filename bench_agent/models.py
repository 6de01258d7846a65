"""The three small reference models whose training step the suite times.

A ResNet-style CNN (convolution-bound), an LSTM classifier (small matrix products,
memory-bound) and a pre-norm transformer block stack with a causal mask (between the two)
— the three workload families the advice distinguishes.
"""

from __future__ import annotations

import torch
from torch import nn

__all__ = ["BasicBlock", "ResNetCNN", "LSTMClassifier", "TransformerLM"]


class BasicBlock(nn.Module):
    """Two 3x3 convolutions with batch norm and a residual shortcut (1x1 conv when shapes change)."""

    def __init__(self, cin: int, cout: int, stride: int = 1):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.shortcut = nn.Identity()
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

    def __init__(self, vocab: int, d_model: int, heads: int, layers: int, seq_len: int):
        super().__init__()
        self.tokens = nn.Embedding(vocab, d_model)
        self.positions = nn.Embedding(seq_len, d_model)
        block = nn.TransformerEncoderLayer(d_model, heads, 4 * d_model, dropout=0.0, batch_first=True, norm_first=True)
        self.blocks = nn.TransformerEncoder(block, layers, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab)
        self.register_buffer("mask", nn.Transformer.generate_square_subsequent_mask(seq_len), persistent=False)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        seq = tokens.shape[1]
        x = self.tokens(tokens) + self.positions(torch.arange(seq, device=tokens.device))
        x = self.blocks(x, mask=self.mask[:seq, :seq], is_causal=True)
        return self.head(self.norm(x))

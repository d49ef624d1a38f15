# report.mk - the report stage's targets (included by the root Makefile).
#   make report-outputs   audit the problems (CPU), replay when a GPU is
#                         present (without one: CPU_REPLAY_MODEL's
#                         evaluations on the CPU), then every table
#                         (out/report) and figure (out/figures) of $(DB),
#                         and the audit as one page (out/report/index.html)
REPORT_OUT  ?= out/report
FIGURES_OUT ?= out/figures
# The profiled workload that weighs DLRM-Bench (report and figures
# --workload); empty: their default, dlrm.  make run names its sample's.
DLRM_WORKLOAD ?=
WORKLOAD_OPT = $(if $(DLRM_WORKLOAD),--workload $(DLRM_WORKLOAD))
# Without a GPU, the model whose evaluations replay on the CPU (C++
# kernels; .ci/replay-cpu.sh); empty: no replay.  make run names its
# sample's.
CPU_REPLAY_MODEL ?=

.PHONY: report-outputs

report-outputs: headroom
	@$(FIND_PY) \
	  ./headroom --db $(DB) audit problems --device cpu --python "$$PY" || \
	    echo "note: 'headroom audit problems' failed: problem-audit columns stay 'not audited'"; \
	  if [ -e /dev/nvidiactl ]; then \
	    ./headroom --db $(DB) replay --device cuda --python "$$PY" || \
	      echo "note: 'headroom replay' failed: replay columns stay empty"; \
	  elif [ -n "$(CPU_REPLAY_MODEL)" ]; then \
	    sh .ci/replay-cpu.sh ./headroom $(DB) "$$PY" $(CPU_REPLAY_MODEL) || \
	      echo "note: 'headroom replay --device cpu' failed: replay columns stay empty"; \
	  else echo "note: no GPU here: replay skipped (the report shows archive numbers only)"; fi
	./headroom --db $(DB) report all --out $(REPORT_OUT) $(WORKLOAD_OPT)
	@if command -v gnuplot >/dev/null 2>&1; then \
	  ./headroom --db $(DB) figures -q --out $(FIGURES_OUT) $(WORKLOAD_OPT); \
	else \
	  ./headroom --db $(DB) figures --data-only --out $(FIGURES_OUT) $(WORKLOAD_OPT); \
	  echo "note: gnuplot missing: figure data only (apt-get install gnuplot-nox, then make figures)"; \
	fi
	./headroom --db $(DB) report html --out $(REPORT_OUT)/index.html $(WORKLOAD_OPT)
	@sh .ci/outputs.sh "tables: " $(REPORT_OUT) md csv json tex
	@sh .ci/outputs.sh "figures:" $(FIGURES_OUT) svg png pdf
	@sh .ci/outputs.sh "page:   " $(REPORT_OUT) html
	@echo "claims:  ./headroom --db $(DB) report claims $(WORKLOAD_OPT)"

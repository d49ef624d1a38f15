# report.mk - the report stage's targets (included by the root Makefile).
#   make report-outputs   audit what runs without a GPU, then every table
#                         (out/report) and figure (out/figures) of $(DB)
REPORT_OUT  ?= out/report
FIGURES_OUT ?= out/figures

.PHONY: report-outputs

report-outputs: headroom
	@if ./headroom help audit >/dev/null 2>&1; then \
	  ./headroom --db $(DB) audit problems || \
	    echo "note: 'headroom audit problems' failed: problem-audit columns stay 'not audited'"; \
	else \
	  echo "note: this build has no 'headroom audit': problem-audit columns stay 'not audited'"; \
	fi
	./headroom --db $(DB) report all --out $(REPORT_OUT)
	@if command -v gnuplot >/dev/null 2>&1; then \
	  ./headroom --db $(DB) figures -q --out $(FIGURES_OUT); \
	else \
	  ./headroom --db $(DB) figures --data-only --out $(FIGURES_OUT); \
	  echo "note: gnuplot missing: figure data only (apt-get install gnuplot-nox, then make figures)"; \
	fi
	@echo "tables:  $(REPORT_OUT)/{claims,models,problems,findings,replay,profiles,provenance}.{md,csv,json,tex}"
	@echo "figures: $(FIGURES_OUT)/{speedup_cdf,correctness,ref_magnitude,reported_vs_replayed,coverage,addressable,amdahl}.{svg,png,pdf}"
	@echo "claims:  ./headroom --db $(DB) report claims"

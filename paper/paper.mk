# paper.mk - `make paper`: the reproduction report PDF (paper/report.tex)
# from $(DB): tables and figures are generated into out/, then pdflatex runs
# offline in out/ (\input{report/...}, \includegraphics{figures/...}).
# Needs TeX (Debian: texlive-latex-recommended texlive-latex-extra
# texlive-fonts-recommended); without it, says so and fails.  make check
# never needs TeX.
PAPER_TEX_PKGS = texlive-latex-recommended texlive-latex-extra texlive-fonts-recommended

.PHONY: paper
paper: headroom
	@command -v pdflatex >/dev/null 2>&1 || { \
	  echo "make paper needs a TeX installation (pdflatex not found)." >&2; \
	  echo "run as root:  apt-get install -y $(PAPER_TEX_PKGS)" >&2; \
	  exit 1; }
	./headroom --db $(DB) report all --out out/report
	./headroom --db $(DB) figures -q --out out/figures
	@mkdir -p out/paper
	cd out && for pass in 1 2; do \
	  pdflatex -interaction=nonstopmode -halt-on-error \
	    -output-directory paper ../paper/report.tex >paper/pdflatex.log || \
	  { tail -30 paper/pdflatex.log >&2; exit 1; }; done
	@echo "paper:   out/paper/report.pdf"

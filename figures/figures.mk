# figures.mk - `make figures`: every figure of $(DB) into $(FIGURES_OUT)
# (default out/figures), installing gnuplot-nox first when run as root.
FIGURES_OUT ?= out/figures

figures: deps-figures headroom
	./headroom --db $(DB) figures --out $(FIGURES_OUT)

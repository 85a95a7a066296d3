# SPDX-License-Identifier: GPL-2.0
# bash completion for flamestat(1).

_flamestat_stack_opts="--comm-pid --cpu-root --delimiter --addresses --raw-names
	--no-annotate --debug-dir --sysroot --perfmap-dir --kallsyms --inline
	--lines --debuginfod --verbose"
# (--count: record, report and fold)
_flamestat_report_opts="--sort --no-children --limit --min --roots --count"
_flamestat_svg_opts="--title --subtitle --width --height --minwidth --fonttype
	--fontsize --fontwidth --countname --nametype --colors --bgcolors --hash
	--random --cp --reverse --inverted --flamechart --negate --notes --factor
	--total --search-color --no-fluid --no-kernel-color --nameattr --encoding
	--colordiffusion --truncate-text-left --truncate-text-right --base
	--uicolor --stroke-color --no-sort --no-javascript"

_flamestat()
{
	local cur prev cmd i
	COMPREPLY=()
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD-1]}

	cmd=
	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		-*) ;;
		*) cmd=${COMP_WORDS[i]}; break ;;
		esac
	done
	if [ -z "$cmd" ]; then
		COMPREPLY=($(compgen -W "record report fold svg diff status help --help --version" -- "$cur"))
		return
	fi
	if [ "$cmd" = help ]; then
		[ "$COMP_CWORD" -eq $((i + 1)) ] &&
			COMPREPLY=($(compgen -W "record report fold svg diff status" -- "$cur"))
		return
	fi
	# After "record ... --", complete the command being profiled.
	for ((i = 2; i < COMP_CWORD; i++)); do
		if [ "${COMP_WORDS[i]}" = "--" ]; then
			COMPREPLY=($(compgen -c -- "$cur"))
			return
		fi
	done

	case $prev in
	-o|--output|--raw|--kallsyms|--nameattr)
		# record --interval writes into a directory
		if [[ $cmd == record && " ${COMP_WORDS[*]} " == *" --interval "* ]]; then
			COMPREPLY=($(compgen -d -- "$cur"))
		else
			COMPREPLY=($(compgen -f -- "$cur"))
		fi
		return ;;
	--debug-dir|--sysroot|--perfmap-dir) COMPREPLY=($(compgen -d -- "$cur")); return ;;
	--format)
		if [ "$cmd" = fold ]; then
			COMPREPLY=($(compgen -W "folded speedscope pprof" -- "$cur"))
		else
			COMPREPLY=($(compgen -W "folded svg report raw speedscope pprof" -- "$cur"))
		fi
		return ;;
	--sort) COMPREPLY=($(compgen -W "self total" -- "$cur")); return ;;
	--count) COMPREPLY=($(compgen -W "periods samples" -- "$cur")); return ;;
	--mode) COMPREPLY=($(compgen -W "cpu offcpu wall" -- "$cur")); return ;;
	--min-block) COMPREPLY=($(compgen -W "10us 100us 1ms 10ms" -- "$cur")); return ;;
	--colors|--color) COMPREPLY=($(compgen -W "hot mem io wakeup chain java js perl red green blue aqua yellow purple orange" -- "$cur")); return ;;
	-p|--pid) COMPREPLY=($(compgen -W "$(ps -e -o pid= 2>/dev/null)" -- "$cur")); return ;;
	-F|--freq|-d|--duration|--interval|--max-files|-C|--cpus|--cpu|--kernel-depth|--user-depth|--limit|--min|--roots|--title|--subtitle|--width|--height|--minwidth|--fonttype|--fontsize|--fontwidth|--countname|--nametype|--bgcolors|--notes|--factor|--total|--search-color|--encoding|--base|--uicolor|--stroke-color) return ;;
	esac

	local opts
	case $cmd in
	record) opts="-a --all-cpus -p --pid -d --duration -F --freq -K --kernel-only
		-U --user-only --idle -C --cpus --per-cpu --kernel-depth --user-depth
		--off-cpu --wall --mode --min-block --waker
		-o --output --format --raw --header --force -q --quiet -h --help
		--interval --max-files --
		$_flamestat_stack_opts $_flamestat_report_opts $_flamestat_svg_opts" ;;
	report) opts="-o --output -h --help $_flamestat_report_opts $_flamestat_stack_opts" ;;
	fold) opts="-o --output --format --header --count -h --help $_flamestat_stack_opts" ;;
	svg) opts="-o --output -h --help $_flamestat_svg_opts" ;;
	diff) opts="-o --output -n --normalize -s --strip-hex -F --folded -h --help $_flamestat_svg_opts" ;;
	status) opts="-j --json -h --help" ;;
	esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$opts" -- "$cur"))
	else
		COMPREPLY=($(compgen -f -- "$cur"))
	fi
}
complete -F _flamestat flamestat

main.o: main.c ../kmod/uapi/flamestat.h commands.h util.h
../kmod/uapi/flamestat.h:
commands.h:
util.h:

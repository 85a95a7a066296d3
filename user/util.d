util.o: util.c util.h
util.h:

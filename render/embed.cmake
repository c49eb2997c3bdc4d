# Turns a text file into a C header holding it as a NUL-terminated array:
#   cmake -DIN=file -DOUT=header -DNAME=symbol -P embed.cmake
file(READ "${IN}" hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," body "${hex}")
string(REGEX REPLACE "((0x..,){16})" "\\1\n" body "${body}")
file(WRITE "${OUT}" "/* generated from ${IN}: do not edit */\nstatic const char ${NAME}[] = {\n${body}0x00};\n")

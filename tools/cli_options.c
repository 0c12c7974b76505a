/*
 * cli_options.c - what the clkit command's parsers share: getopt's
 * complaints in words, and whole numbers read strictly.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* optind before the last cli_next_option: getopt leaves optind where it
 * was while it is inside a cluster of short options (-xh), so an unchanged
 * optind says the option at fault is a letter of argv[optind], not the
 * argument before it. */
static int optind_before;

int cli_next_option(int argc, char **argv, const char *short_options,
                    const struct option *options) {
  optind_before = optind;
  return getopt_long(argc, argv, short_options, options, NULL);
}

/* "unknown option '--NAME'", and the option it most likely meant. */
static void unknown_long_option(char *message, size_t size, const char *name,
                                size_t length, const struct option *options) {
  char word[128];
  const char *names[MAX_LONG_OPTIONS];
  size_t count = 0;
  snprintf(word, sizeof word, "%.*s", (int)length, name);
  for (const struct option *o = options;
       o && o->name && count < MAX_LONG_OPTIONS; ++o)
    names[count++] = o->name;
  const char *nearest = NULL;
  ck_param_suggest(word, names, count, &nearest);
  snprintf(message, size, "unknown option '--%.*s'%s%s%s", (int)length, name,
           nearest ? "; did you mean --" : "", nearest ? nearest : "",
           nearest ? "?" : "");
}

void cli_option_message(char *message, size_t size, int code, char **argv,
                        int index, const struct option *options) {
  const int inside_cluster = index == optind_before;
  const char *option = index > 0 && !inside_cluster ? argv[index - 1] : "";
  /* "--" alone, or "--=VALUE", names no option. */
  if (strncmp(option, "--", 2) == 0 && option[2] && option[2] != '=') {
    size_t length = strcspn(option + 2, "=");
    /* getopt_long takes an abbreviation for the one option it begins, and
     * a whole name before the longer names it begins. */
    const struct option *known = NULL;
    size_t prefixed = 0, written = 0;
    for (const struct option *o = options; o && o->name; ++o) {
      if (strncmp(o->name, option + 2, length) != 0)
        continue;
      if (strlen(o->name) == length) {
        known = o;
        prefixed = 1;
        break;
      }
      known = prefixed++ ? NULL : o;
    }
    int has_value = option[2 + length] == '=';
    if (known && code == ':')
      snprintf(message, size, "option '--%s' needs a value", known->name);
    else if (known && has_value && known->has_arg == no_argument)
      snprintf(message, size, "option '--%s' takes no value", known->name);
    else if (prefixed > 1) {
      int put =
          snprintf(message, size, "option '--%.*s' is ambiguous:", (int)length,
                   option + 2);
      written = put > 0 ? (size_t)put : 0;
      const char *separator = " ";
      for (const struct option *o = options; o && o->name && written < size;
           ++o) {
        if (strncmp(o->name, option + 2, length) != 0)
          continue;
        put = snprintf(message + written, size - written, "%s--%s", separator,
                       o->name);
        written += put > 0 ? (size_t)put : 0;
        separator = ", ";
      }
    } else
      unknown_long_option(message, size, option + 2, length, options);
    return;
  }
  /* A short option: getopt leaves the letter in optopt. */
  if (code == ':')
    snprintf(message, size, "option '-%c' needs a value", optopt);
  else if (optopt > 0 && optopt < 256)
    snprintf(message, size, "unknown option '-%c'", optopt);
  else
    snprintf(message, size, "unknown option '%s'", option);
}

/* Reads digits[.digits][(e|E)[+|-]digits] exactly, as a count's 1e3 is read,
 * but without a double between: a seed past 2^53 keeps every digit. */
static int parse_exponent_form(const char *text, unsigned long long *value) {
  char digits[64];
  size_t count = 0, fraction = 0;
  const char *at = text;
  for (int after_point = 0;; ++at) {
    if (*at == '.' && !after_point) {
      after_point = 1;
      continue;
    }
    if (!isdigit((unsigned char)*at))
      break;
    if (count == sizeof digits)
      return -1;
    digits[count++] = *at;
    fraction += (size_t)after_point;
  }
  if (count == 0)
    return -1;
  long exponent = 0;
  int negative = 0;
  if (*at == 'e' || *at == 'E') {
    ++at;
    negative = *at == '-';
    if (*at == '-' || *at == '+')
      ++at;
    if (!isdigit((unsigned char)*at))
      return -1;
    for (; isdigit((unsigned char)*at); ++at)
      if (exponent < 1000)
        exponent = exponent * 10 + (*at - '0');
  }
  if (*at)
    return -1;
  /* The value is digits x 10^shift; a negative shift drops digits, which
   * must all be 0 for the number to be whole. */
  long shift = (negative ? -exponent : exponent) - (long)fraction;
  while (shift < 0 && count > 0) {
    if (digits[--count] != '0')
      return -1;
    ++shift;
  }
  unsigned long long result = 0;
  for (size_t i = 0; i < count; ++i) {
    unsigned digit = (unsigned)(digits[i] - '0');
    if (result > (~0ULL - digit) / 10)
      return -1;
    result = result * 10 + digit;
  }
  for (; shift > 0 && result != 0; --shift) {
    if (result > ~0ULL / 10)
      return -1;
    result *= 10;
  }
  *value = result;
  return 0;
}

int cli_parse_unsigned(const char *text, unsigned long long *value) {
  int hexadecimal = text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
  const char *digits = hexadecimal ? text + 2 : text;
  /* strtoull would skip spaces and negate a '-'; neither is a number here,
   * and a leading 0 means nothing (not octal). */
  if (!(hexadecimal ? isxdigit((unsigned char)*digits)
                    : isdigit((unsigned char)*digits)))
    return -1;
  if (!hexadecimal && strpbrk(digits, ".eE"))
    return parse_exponent_form(digits, value);
  char *end = NULL;
  errno = 0;
  *value = strtoull(digits, &end, hexadecimal ? 16 : 10);
  return *end || errno == ERANGE ? -1 : 0;
}

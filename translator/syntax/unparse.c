/* unparse.c - AST to Python source text, byte for byte as CPython 3.11's ast.unparse prints it. */
#include "syntax/unparse.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- precedence, as ast.unparse ranks it (higher binds tighter) ---- */

enum {
    P_NAMED_EXPR = 1,
    P_TUPLE,
    P_YIELD,
    P_TEST,
    P_OR,
    P_AND,
    P_NOT,
    P_CMP,
    P_EXPR,
    P_BOR = P_EXPR,
    P_BXOR,
    P_BAND,
    P_SHIFT,
    P_ARITH,
    P_TERM,
    P_FACTOR,
    P_POWER,
    P_AWAIT,
    P_ATOM,
};

static int next_prec(int p) { return p < P_ATOM ? p + 1 : P_ATOM; }

/* The printer's state. Parent nodes hand each child the precedence of the
 * context it appears in (CPython keeps the same in a dict keyed by node;
 * an unset entry means P_TEST). */
typedef struct U {
    d2_buf *out;
    size_t start;     /* out->len when printing began: "is the output empty" looks past it */
    int indent;
    bool avoid_bs;    /* inside an f-string replacement field: quote without backslashes */
    bool in_try_star; /* handlers print as except* */
} U;

static void stmt(U *u, const d2_ast_stmt *s);
static void expr(U *u, const d2_ast_expr *e, int p);
static void pattern(U *u, const d2_ast_pattern *pt, int p);
static void arguments(U *u, const d2_ast_arguments *a);

static void wn(U *u, const char *s, size_t n) { d2_buf_append(u->out, s, n); }
static void w(U *u, const char *s) { d2_buf_puts(u->out, s); }

static void maybe_newline(U *u)
{
    if (u->out->len > u->start)
        w(u, "\n");
}

/* A new line at the current indentation, then text. */
static void fill(U *u, const char *text)
{
    maybe_newline(u);
    for (int i = 0; i < u->indent; i++)
        w(u, "    ");
    w(u, text);
}

/* ---- characters ---- */

/* Code point ranges that str.isprintable() rejects, from CPython 3.11's
 * Unicode database (written by tests/gen/gen_unparse.py --table). */
/* BEGIN GENERATED nonprintable */
static const uint32_t nonprintable[][2] = {
    {0x0, 0x1F}, {0x7F, 0xA0}, {0xAD, 0xAD}, {0x378, 0x379}, {0x380, 0x383}, {0x38B, 0x38B},
    {0x38D, 0x38D}, {0x3A2, 0x3A2}, {0x530, 0x530}, {0x557, 0x558}, {0x58B, 0x58C}, {0x590, 0x590},
    {0x5C8, 0x5CF}, {0x5EB, 0x5EE}, {0x5F5, 0x605}, {0x61C, 0x61C}, {0x6DD, 0x6DD}, {0x70E, 0x70F},
    {0x74B, 0x74C}, {0x7B2, 0x7BF}, {0x7FB, 0x7FC}, {0x82E, 0x82F}, {0x83F, 0x83F}, {0x85C, 0x85D},
    {0x85F, 0x85F}, {0x86B, 0x86F}, {0x88F, 0x897}, {0x8E2, 0x8E2}, {0x984, 0x984}, {0x98D, 0x98E},
    {0x991, 0x992}, {0x9A9, 0x9A9}, {0x9B1, 0x9B1}, {0x9B3, 0x9B5}, {0x9BA, 0x9BB}, {0x9C5, 0x9C6},
    {0x9C9, 0x9CA}, {0x9CF, 0x9D6}, {0x9D8, 0x9DB}, {0x9DE, 0x9DE}, {0x9E4, 0x9E5}, {0x9FF, 0xA00},
    {0xA04, 0xA04}, {0xA0B, 0xA0E}, {0xA11, 0xA12}, {0xA29, 0xA29}, {0xA31, 0xA31}, {0xA34, 0xA34},
    {0xA37, 0xA37}, {0xA3A, 0xA3B}, {0xA3D, 0xA3D}, {0xA43, 0xA46}, {0xA49, 0xA4A}, {0xA4E, 0xA50},
    {0xA52, 0xA58}, {0xA5D, 0xA5D}, {0xA5F, 0xA65}, {0xA77, 0xA80}, {0xA84, 0xA84}, {0xA8E, 0xA8E},
    {0xA92, 0xA92}, {0xAA9, 0xAA9}, {0xAB1, 0xAB1}, {0xAB4, 0xAB4}, {0xABA, 0xABB}, {0xAC6, 0xAC6},
    {0xACA, 0xACA}, {0xACE, 0xACF}, {0xAD1, 0xADF}, {0xAE4, 0xAE5}, {0xAF2, 0xAF8}, {0xB00, 0xB00},
    {0xB04, 0xB04}, {0xB0D, 0xB0E}, {0xB11, 0xB12}, {0xB29, 0xB29}, {0xB31, 0xB31}, {0xB34, 0xB34},
    {0xB3A, 0xB3B}, {0xB45, 0xB46}, {0xB49, 0xB4A}, {0xB4E, 0xB54}, {0xB58, 0xB5B}, {0xB5E, 0xB5E},
    {0xB64, 0xB65}, {0xB78, 0xB81}, {0xB84, 0xB84}, {0xB8B, 0xB8D}, {0xB91, 0xB91}, {0xB96, 0xB98},
    {0xB9B, 0xB9B}, {0xB9D, 0xB9D}, {0xBA0, 0xBA2}, {0xBA5, 0xBA7}, {0xBAB, 0xBAD}, {0xBBA, 0xBBD},
    {0xBC3, 0xBC5}, {0xBC9, 0xBC9}, {0xBCE, 0xBCF}, {0xBD1, 0xBD6}, {0xBD8, 0xBE5}, {0xBFB, 0xBFF},
    {0xC0D, 0xC0D}, {0xC11, 0xC11}, {0xC29, 0xC29}, {0xC3A, 0xC3B}, {0xC45, 0xC45}, {0xC49, 0xC49},
    {0xC4E, 0xC54}, {0xC57, 0xC57}, {0xC5B, 0xC5C}, {0xC5E, 0xC5F}, {0xC64, 0xC65}, {0xC70, 0xC76},
    {0xC8D, 0xC8D}, {0xC91, 0xC91}, {0xCA9, 0xCA9}, {0xCB4, 0xCB4}, {0xCBA, 0xCBB}, {0xCC5, 0xCC5},
    {0xCC9, 0xCC9}, {0xCCE, 0xCD4}, {0xCD7, 0xCDC}, {0xCDF, 0xCDF}, {0xCE4, 0xCE5}, {0xCF0, 0xCF0},
    {0xCF3, 0xCFF}, {0xD0D, 0xD0D}, {0xD11, 0xD11}, {0xD45, 0xD45}, {0xD49, 0xD49}, {0xD50, 0xD53},
    {0xD64, 0xD65}, {0xD80, 0xD80}, {0xD84, 0xD84}, {0xD97, 0xD99}, {0xDB2, 0xDB2}, {0xDBC, 0xDBC},
    {0xDBE, 0xDBF}, {0xDC7, 0xDC9}, {0xDCB, 0xDCE}, {0xDD5, 0xDD5}, {0xDD7, 0xDD7}, {0xDE0, 0xDE5},
    {0xDF0, 0xDF1}, {0xDF5, 0xE00}, {0xE3B, 0xE3E}, {0xE5C, 0xE80}, {0xE83, 0xE83}, {0xE85, 0xE85},
    {0xE8B, 0xE8B}, {0xEA4, 0xEA4}, {0xEA6, 0xEA6}, {0xEBE, 0xEBF}, {0xEC5, 0xEC5}, {0xEC7, 0xEC7},
    {0xECE, 0xECF}, {0xEDA, 0xEDB}, {0xEE0, 0xEFF}, {0xF48, 0xF48}, {0xF6D, 0xF70}, {0xF98, 0xF98},
    {0xFBD, 0xFBD}, {0xFCD, 0xFCD}, {0xFDB, 0xFFF}, {0x10C6, 0x10C6}, {0x10C8, 0x10CC}, {0x10CE, 0x10CF},
    {0x1249, 0x1249}, {0x124E, 0x124F}, {0x1257, 0x1257}, {0x1259, 0x1259}, {0x125E, 0x125F}, {0x1289, 0x1289},
    {0x128E, 0x128F}, {0x12B1, 0x12B1}, {0x12B6, 0x12B7}, {0x12BF, 0x12BF}, {0x12C1, 0x12C1}, {0x12C6, 0x12C7},
    {0x12D7, 0x12D7}, {0x1311, 0x1311}, {0x1316, 0x1317}, {0x135B, 0x135C}, {0x137D, 0x137F}, {0x139A, 0x139F},
    {0x13F6, 0x13F7}, {0x13FE, 0x13FF}, {0x1680, 0x1680}, {0x169D, 0x169F}, {0x16F9, 0x16FF}, {0x1716, 0x171E},
    {0x1737, 0x173F}, {0x1754, 0x175F}, {0x176D, 0x176D}, {0x1771, 0x1771}, {0x1774, 0x177F}, {0x17DE, 0x17DF},
    {0x17EA, 0x17EF}, {0x17FA, 0x17FF}, {0x180E, 0x180E}, {0x181A, 0x181F}, {0x1879, 0x187F}, {0x18AB, 0x18AF},
    {0x18F6, 0x18FF}, {0x191F, 0x191F}, {0x192C, 0x192F}, {0x193C, 0x193F}, {0x1941, 0x1943}, {0x196E, 0x196F},
    {0x1975, 0x197F}, {0x19AC, 0x19AF}, {0x19CA, 0x19CF}, {0x19DB, 0x19DD}, {0x1A1C, 0x1A1D}, {0x1A5F, 0x1A5F},
    {0x1A7D, 0x1A7E}, {0x1A8A, 0x1A8F}, {0x1A9A, 0x1A9F}, {0x1AAE, 0x1AAF}, {0x1ACF, 0x1AFF}, {0x1B4D, 0x1B4F},
    {0x1B7F, 0x1B7F}, {0x1BF4, 0x1BFB}, {0x1C38, 0x1C3A}, {0x1C4A, 0x1C4C}, {0x1C89, 0x1C8F}, {0x1CBB, 0x1CBC},
    {0x1CC8, 0x1CCF}, {0x1CFB, 0x1CFF}, {0x1F16, 0x1F17}, {0x1F1E, 0x1F1F}, {0x1F46, 0x1F47}, {0x1F4E, 0x1F4F},
    {0x1F58, 0x1F58}, {0x1F5A, 0x1F5A}, {0x1F5C, 0x1F5C}, {0x1F5E, 0x1F5E}, {0x1F7E, 0x1F7F}, {0x1FB5, 0x1FB5},
    {0x1FC5, 0x1FC5}, {0x1FD4, 0x1FD5}, {0x1FDC, 0x1FDC}, {0x1FF0, 0x1FF1}, {0x1FF5, 0x1FF5}, {0x1FFF, 0x200F},
    {0x2028, 0x202F}, {0x205F, 0x206F}, {0x2072, 0x2073}, {0x208F, 0x208F}, {0x209D, 0x209F}, {0x20C1, 0x20CF},
    {0x20F1, 0x20FF}, {0x218C, 0x218F}, {0x2427, 0x243F}, {0x244B, 0x245F}, {0x2B74, 0x2B75}, {0x2B96, 0x2B96},
    {0x2CF4, 0x2CF8}, {0x2D26, 0x2D26}, {0x2D28, 0x2D2C}, {0x2D2E, 0x2D2F}, {0x2D68, 0x2D6E}, {0x2D71, 0x2D7E},
    {0x2D97, 0x2D9F}, {0x2DA7, 0x2DA7}, {0x2DAF, 0x2DAF}, {0x2DB7, 0x2DB7}, {0x2DBF, 0x2DBF}, {0x2DC7, 0x2DC7},
    {0x2DCF, 0x2DCF}, {0x2DD7, 0x2DD7}, {0x2DDF, 0x2DDF}, {0x2E5E, 0x2E7F}, {0x2E9A, 0x2E9A}, {0x2EF4, 0x2EFF},
    {0x2FD6, 0x2FEF}, {0x2FFC, 0x3000}, {0x3040, 0x3040}, {0x3097, 0x3098}, {0x3100, 0x3104}, {0x3130, 0x3130},
    {0x318F, 0x318F}, {0x31E4, 0x31EF}, {0x321F, 0x321F}, {0xA48D, 0xA48F}, {0xA4C7, 0xA4CF}, {0xA62C, 0xA63F},
    {0xA6F8, 0xA6FF}, {0xA7CB, 0xA7CF}, {0xA7D2, 0xA7D2}, {0xA7D4, 0xA7D4}, {0xA7DA, 0xA7F1}, {0xA82D, 0xA82F},
    {0xA83A, 0xA83F}, {0xA878, 0xA87F}, {0xA8C6, 0xA8CD}, {0xA8DA, 0xA8DF}, {0xA954, 0xA95E}, {0xA97D, 0xA97F},
    {0xA9CE, 0xA9CE}, {0xA9DA, 0xA9DD}, {0xA9FF, 0xA9FF}, {0xAA37, 0xAA3F}, {0xAA4E, 0xAA4F}, {0xAA5A, 0xAA5B},
    {0xAAC3, 0xAADA}, {0xAAF7, 0xAB00}, {0xAB07, 0xAB08}, {0xAB0F, 0xAB10}, {0xAB17, 0xAB1F}, {0xAB27, 0xAB27},
    {0xAB2F, 0xAB2F}, {0xAB6C, 0xAB6F}, {0xABEE, 0xABEF}, {0xABFA, 0xABFF}, {0xD7A4, 0xD7AF}, {0xD7C7, 0xD7CA},
    {0xD7FC, 0xF8FF}, {0xFA6E, 0xFA6F}, {0xFADA, 0xFAFF}, {0xFB07, 0xFB12}, {0xFB18, 0xFB1C}, {0xFB37, 0xFB37},
    {0xFB3D, 0xFB3D}, {0xFB3F, 0xFB3F}, {0xFB42, 0xFB42}, {0xFB45, 0xFB45}, {0xFBC3, 0xFBD2}, {0xFD90, 0xFD91},
    {0xFDC8, 0xFDCE}, {0xFDD0, 0xFDEF}, {0xFE1A, 0xFE1F}, {0xFE53, 0xFE53}, {0xFE67, 0xFE67}, {0xFE6C, 0xFE6F},
    {0xFE75, 0xFE75}, {0xFEFD, 0xFF00}, {0xFFBF, 0xFFC1}, {0xFFC8, 0xFFC9}, {0xFFD0, 0xFFD1}, {0xFFD8, 0xFFD9},
    {0xFFDD, 0xFFDF}, {0xFFE7, 0xFFE7}, {0xFFEF, 0xFFFB}, {0xFFFE, 0xFFFF}, {0x1000C, 0x1000C}, {0x10027, 0x10027},
    {0x1003B, 0x1003B}, {0x1003E, 0x1003E}, {0x1004E, 0x1004F}, {0x1005E, 0x1007F}, {0x100FB, 0x100FF}, {0x10103, 0x10106},
    {0x10134, 0x10136}, {0x1018F, 0x1018F}, {0x1019D, 0x1019F}, {0x101A1, 0x101CF}, {0x101FE, 0x1027F}, {0x1029D, 0x1029F},
    {0x102D1, 0x102DF}, {0x102FC, 0x102FF}, {0x10324, 0x1032C}, {0x1034B, 0x1034F}, {0x1037B, 0x1037F}, {0x1039E, 0x1039E},
    {0x103C4, 0x103C7}, {0x103D6, 0x103FF}, {0x1049E, 0x1049F}, {0x104AA, 0x104AF}, {0x104D4, 0x104D7}, {0x104FC, 0x104FF},
    {0x10528, 0x1052F}, {0x10564, 0x1056E}, {0x1057B, 0x1057B}, {0x1058B, 0x1058B}, {0x10593, 0x10593}, {0x10596, 0x10596},
    {0x105A2, 0x105A2}, {0x105B2, 0x105B2}, {0x105BA, 0x105BA}, {0x105BD, 0x105FF}, {0x10737, 0x1073F}, {0x10756, 0x1075F},
    {0x10768, 0x1077F}, {0x10786, 0x10786}, {0x107B1, 0x107B1}, {0x107BB, 0x107FF}, {0x10806, 0x10807}, {0x10809, 0x10809},
    {0x10836, 0x10836}, {0x10839, 0x1083B}, {0x1083D, 0x1083E}, {0x10856, 0x10856}, {0x1089F, 0x108A6}, {0x108B0, 0x108DF},
    {0x108F3, 0x108F3}, {0x108F6, 0x108FA}, {0x1091C, 0x1091E}, {0x1093A, 0x1093E}, {0x10940, 0x1097F}, {0x109B8, 0x109BB},
    {0x109D0, 0x109D1}, {0x10A04, 0x10A04}, {0x10A07, 0x10A0B}, {0x10A14, 0x10A14}, {0x10A18, 0x10A18}, {0x10A36, 0x10A37},
    {0x10A3B, 0x10A3E}, {0x10A49, 0x10A4F}, {0x10A59, 0x10A5F}, {0x10AA0, 0x10ABF}, {0x10AE7, 0x10AEA}, {0x10AF7, 0x10AFF},
    {0x10B36, 0x10B38}, {0x10B56, 0x10B57}, {0x10B73, 0x10B77}, {0x10B92, 0x10B98}, {0x10B9D, 0x10BA8}, {0x10BB0, 0x10BFF},
    {0x10C49, 0x10C7F}, {0x10CB3, 0x10CBF}, {0x10CF3, 0x10CF9}, {0x10D28, 0x10D2F}, {0x10D3A, 0x10E5F}, {0x10E7F, 0x10E7F},
    {0x10EAA, 0x10EAA}, {0x10EAE, 0x10EAF}, {0x10EB2, 0x10EFF}, {0x10F28, 0x10F2F}, {0x10F5A, 0x10F6F}, {0x10F8A, 0x10FAF},
    {0x10FCC, 0x10FDF}, {0x10FF7, 0x10FFF}, {0x1104E, 0x11051}, {0x11076, 0x1107E}, {0x110BD, 0x110BD}, {0x110C3, 0x110CF},
    {0x110E9, 0x110EF}, {0x110FA, 0x110FF}, {0x11135, 0x11135}, {0x11148, 0x1114F}, {0x11177, 0x1117F}, {0x111E0, 0x111E0},
    {0x111F5, 0x111FF}, {0x11212, 0x11212}, {0x1123F, 0x1127F}, {0x11287, 0x11287}, {0x11289, 0x11289}, {0x1128E, 0x1128E},
    {0x1129E, 0x1129E}, {0x112AA, 0x112AF}, {0x112EB, 0x112EF}, {0x112FA, 0x112FF}, {0x11304, 0x11304}, {0x1130D, 0x1130E},
    {0x11311, 0x11312}, {0x11329, 0x11329}, {0x11331, 0x11331}, {0x11334, 0x11334}, {0x1133A, 0x1133A}, {0x11345, 0x11346},
    {0x11349, 0x1134A}, {0x1134E, 0x1134F}, {0x11351, 0x11356}, {0x11358, 0x1135C}, {0x11364, 0x11365}, {0x1136D, 0x1136F},
    {0x11375, 0x113FF}, {0x1145C, 0x1145C}, {0x11462, 0x1147F}, {0x114C8, 0x114CF}, {0x114DA, 0x1157F}, {0x115B6, 0x115B7},
    {0x115DE, 0x115FF}, {0x11645, 0x1164F}, {0x1165A, 0x1165F}, {0x1166D, 0x1167F}, {0x116BA, 0x116BF}, {0x116CA, 0x116FF},
    {0x1171B, 0x1171C}, {0x1172C, 0x1172F}, {0x11747, 0x117FF}, {0x1183C, 0x1189F}, {0x118F3, 0x118FE}, {0x11907, 0x11908},
    {0x1190A, 0x1190B}, {0x11914, 0x11914}, {0x11917, 0x11917}, {0x11936, 0x11936}, {0x11939, 0x1193A}, {0x11947, 0x1194F},
    {0x1195A, 0x1199F}, {0x119A8, 0x119A9}, {0x119D8, 0x119D9}, {0x119E5, 0x119FF}, {0x11A48, 0x11A4F}, {0x11AA3, 0x11AAF},
    {0x11AF9, 0x11BFF}, {0x11C09, 0x11C09}, {0x11C37, 0x11C37}, {0x11C46, 0x11C4F}, {0x11C6D, 0x11C6F}, {0x11C90, 0x11C91},
    {0x11CA8, 0x11CA8}, {0x11CB7, 0x11CFF}, {0x11D07, 0x11D07}, {0x11D0A, 0x11D0A}, {0x11D37, 0x11D39}, {0x11D3B, 0x11D3B},
    {0x11D3E, 0x11D3E}, {0x11D48, 0x11D4F}, {0x11D5A, 0x11D5F}, {0x11D66, 0x11D66}, {0x11D69, 0x11D69}, {0x11D8F, 0x11D8F},
    {0x11D92, 0x11D92}, {0x11D99, 0x11D9F}, {0x11DAA, 0x11EDF}, {0x11EF9, 0x11FAF}, {0x11FB1, 0x11FBF}, {0x11FF2, 0x11FFE},
    {0x1239A, 0x123FF}, {0x1246F, 0x1246F}, {0x12475, 0x1247F}, {0x12544, 0x12F8F}, {0x12FF3, 0x12FFF}, {0x1342F, 0x143FF},
    {0x14647, 0x167FF}, {0x16A39, 0x16A3F}, {0x16A5F, 0x16A5F}, {0x16A6A, 0x16A6D}, {0x16ABF, 0x16ABF}, {0x16ACA, 0x16ACF},
    {0x16AEE, 0x16AEF}, {0x16AF6, 0x16AFF}, {0x16B46, 0x16B4F}, {0x16B5A, 0x16B5A}, {0x16B62, 0x16B62}, {0x16B78, 0x16B7C},
    {0x16B90, 0x16E3F}, {0x16E9B, 0x16EFF}, {0x16F4B, 0x16F4E}, {0x16F88, 0x16F8E}, {0x16FA0, 0x16FDF}, {0x16FE5, 0x16FEF},
    {0x16FF2, 0x16FFF}, {0x187F8, 0x187FF}, {0x18CD6, 0x18CFF}, {0x18D09, 0x1AFEF}, {0x1AFF4, 0x1AFF4}, {0x1AFFC, 0x1AFFC},
    {0x1AFFF, 0x1AFFF}, {0x1B123, 0x1B14F}, {0x1B153, 0x1B163}, {0x1B168, 0x1B16F}, {0x1B2FC, 0x1BBFF}, {0x1BC6B, 0x1BC6F},
    {0x1BC7D, 0x1BC7F}, {0x1BC89, 0x1BC8F}, {0x1BC9A, 0x1BC9B}, {0x1BCA0, 0x1CEFF}, {0x1CF2E, 0x1CF2F}, {0x1CF47, 0x1CF4F},
    {0x1CFC4, 0x1CFFF}, {0x1D0F6, 0x1D0FF}, {0x1D127, 0x1D128}, {0x1D173, 0x1D17A}, {0x1D1EB, 0x1D1FF}, {0x1D246, 0x1D2DF},
    {0x1D2F4, 0x1D2FF}, {0x1D357, 0x1D35F}, {0x1D379, 0x1D3FF}, {0x1D455, 0x1D455}, {0x1D49D, 0x1D49D}, {0x1D4A0, 0x1D4A1},
    {0x1D4A3, 0x1D4A4}, {0x1D4A7, 0x1D4A8}, {0x1D4AD, 0x1D4AD}, {0x1D4BA, 0x1D4BA}, {0x1D4BC, 0x1D4BC}, {0x1D4C4, 0x1D4C4},
    {0x1D506, 0x1D506}, {0x1D50B, 0x1D50C}, {0x1D515, 0x1D515}, {0x1D51D, 0x1D51D}, {0x1D53A, 0x1D53A}, {0x1D53F, 0x1D53F},
    {0x1D545, 0x1D545}, {0x1D547, 0x1D549}, {0x1D551, 0x1D551}, {0x1D6A6, 0x1D6A7}, {0x1D7CC, 0x1D7CD}, {0x1DA8C, 0x1DA9A},
    {0x1DAA0, 0x1DAA0}, {0x1DAB0, 0x1DEFF}, {0x1DF1F, 0x1DFFF}, {0x1E007, 0x1E007}, {0x1E019, 0x1E01A}, {0x1E022, 0x1E022},
    {0x1E025, 0x1E025}, {0x1E02B, 0x1E0FF}, {0x1E12D, 0x1E12F}, {0x1E13E, 0x1E13F}, {0x1E14A, 0x1E14D}, {0x1E150, 0x1E28F},
    {0x1E2AF, 0x1E2BF}, {0x1E2FA, 0x1E2FE}, {0x1E300, 0x1E7DF}, {0x1E7E7, 0x1E7E7}, {0x1E7EC, 0x1E7EC}, {0x1E7EF, 0x1E7EF},
    {0x1E7FF, 0x1E7FF}, {0x1E8C5, 0x1E8C6}, {0x1E8D7, 0x1E8FF}, {0x1E94C, 0x1E94F}, {0x1E95A, 0x1E95D}, {0x1E960, 0x1EC70},
    {0x1ECB5, 0x1ED00}, {0x1ED3E, 0x1EDFF}, {0x1EE04, 0x1EE04}, {0x1EE20, 0x1EE20}, {0x1EE23, 0x1EE23}, {0x1EE25, 0x1EE26},
    {0x1EE28, 0x1EE28}, {0x1EE33, 0x1EE33}, {0x1EE38, 0x1EE38}, {0x1EE3A, 0x1EE3A}, {0x1EE3C, 0x1EE41}, {0x1EE43, 0x1EE46},
    {0x1EE48, 0x1EE48}, {0x1EE4A, 0x1EE4A}, {0x1EE4C, 0x1EE4C}, {0x1EE50, 0x1EE50}, {0x1EE53, 0x1EE53}, {0x1EE55, 0x1EE56},
    {0x1EE58, 0x1EE58}, {0x1EE5A, 0x1EE5A}, {0x1EE5C, 0x1EE5C}, {0x1EE5E, 0x1EE5E}, {0x1EE60, 0x1EE60}, {0x1EE63, 0x1EE63},
    {0x1EE65, 0x1EE66}, {0x1EE6B, 0x1EE6B}, {0x1EE73, 0x1EE73}, {0x1EE78, 0x1EE78}, {0x1EE7D, 0x1EE7D}, {0x1EE7F, 0x1EE7F},
    {0x1EE8A, 0x1EE8A}, {0x1EE9C, 0x1EEA0}, {0x1EEA4, 0x1EEA4}, {0x1EEAA, 0x1EEAA}, {0x1EEBC, 0x1EEEF}, {0x1EEF2, 0x1EFFF},
    {0x1F02C, 0x1F02F}, {0x1F094, 0x1F09F}, {0x1F0AF, 0x1F0B0}, {0x1F0C0, 0x1F0C0}, {0x1F0D0, 0x1F0D0}, {0x1F0F6, 0x1F0FF},
    {0x1F1AE, 0x1F1E5}, {0x1F203, 0x1F20F}, {0x1F23C, 0x1F23F}, {0x1F249, 0x1F24F}, {0x1F252, 0x1F25F}, {0x1F266, 0x1F2FF},
    {0x1F6D8, 0x1F6DC}, {0x1F6ED, 0x1F6EF}, {0x1F6FD, 0x1F6FF}, {0x1F774, 0x1F77F}, {0x1F7D9, 0x1F7DF}, {0x1F7EC, 0x1F7EF},
    {0x1F7F1, 0x1F7FF}, {0x1F80C, 0x1F80F}, {0x1F848, 0x1F84F}, {0x1F85A, 0x1F85F}, {0x1F888, 0x1F88F}, {0x1F8AE, 0x1F8AF},
    {0x1F8B2, 0x1F8FF}, {0x1FA54, 0x1FA5F}, {0x1FA6E, 0x1FA6F}, {0x1FA75, 0x1FA77}, {0x1FA7D, 0x1FA7F}, {0x1FA87, 0x1FA8F},
    {0x1FAAD, 0x1FAAF}, {0x1FABB, 0x1FABF}, {0x1FAC6, 0x1FACF}, {0x1FADA, 0x1FADF}, {0x1FAE8, 0x1FAEF}, {0x1FAF7, 0x1FAFF},
    {0x1FB93, 0x1FB93}, {0x1FBCB, 0x1FBEF}, {0x1FBFA, 0x1FFFF}, {0x2A6E0, 0x2A6FF}, {0x2B739, 0x2B73F}, {0x2B81E, 0x2B81F},
    {0x2CEA2, 0x2CEAF}, {0x2EBE1, 0x2F7FF}, {0x2FA1E, 0x2FFFF}, {0x3134B, 0xE00FF}, {0xE01F0, 0x10FFFF},
};
/* END GENERATED nonprintable */

bool d2_unparse_printable(uint32_t c)
{
    size_t lo = 0, hi = D2_COUNTOF(nonprintable);
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (c < nonprintable[mid][0])
            hi = mid;
        else if (c > nonprintable[mid][1])
            lo = mid + 1;
        else
            return false;
    }
    return true;
}

/* Decodes one code point at s[*i] (lenient UTF-8 that also accepts the
 * 3-byte form of lone surrogates) and advances *i. */
static uint32_t next_cp(const char *s, size_t n, size_t *i)
{
    const unsigned char *p = (const unsigned char *)s + *i;
    size_t left = n - *i;
    uint32_t c = p[0];
    size_t len = 1;
    if (c >= 0xF0 && left >= 4) {
        c = ((c & 0x07u) << 18) | ((p[1] & 0x3Fu) << 12) | ((p[2] & 0x3Fu) << 6) | (p[3] & 0x3Fu);
        len = 4;
    } else if (c >= 0xE0 && left >= 3) {
        c = ((c & 0x0Fu) << 12) | ((p[1] & 0x3Fu) << 6) | (p[2] & 0x3Fu);
        len = 3;
    } else if (c >= 0xC0 && left >= 2) {
        c = ((c & 0x1Fu) << 6) | (p[1] & 0x3Fu);
        len = 2;
    }
    *i += len;
    return c;
}

/* \xhh, \uhhhh or \Uhhhhhhhh, as repr() and the unicode_escape codec write
 * a character they escape by number. */
static void escape_number(d2_buf *b, uint32_t c)
{
    if (c < 0x100)
        d2_buf_printf(b, "\\x%02x", (unsigned)c);
    else if (c < 0x10000)
        d2_buf_printf(b, "\\u%04x", (unsigned)c);
    else
        d2_buf_printf(b, "\\U%08x", (unsigned)c);
}

/* The body of repr(s) between its quotes, for quote character q. */
static void repr_body(d2_buf *b, const char *s, size_t n, char q)
{
    size_t i = 0;
    while (i < n) {
        size_t at = i;
        uint32_t c = next_cp(s, n, &i);
        if (c == (uint32_t)q || c == '\\') {
            char e[2] = {'\\', (char)c};
            d2_buf_append(b, e, 2);
        } else if (c == '\t') {
            d2_buf_puts(b, "\\t");
        } else if (c == '\n') {
            d2_buf_puts(b, "\\n");
        } else if (c == '\r') {
            d2_buf_puts(b, "\\r");
        } else if (c < 0x20 || c == 0x7F) {
            escape_number(b, c);
        } else if (c < 0x7F || d2_unparse_printable(c)) {
            d2_buf_append(b, s + at, i - at);
        } else {
            escape_number(b, c);
        }
    }
}

/* repr(s) for a str: single quotes unless s holds ' and no ". */
static void repr_str(d2_buf *b, const char *s, size_t n)
{
    char q = memchr(s, '\'', n) && !memchr(s, '"', n) ? '"' : '\'';
    d2_buf_append(b, &q, 1);
    repr_body(b, s, n, q);
    d2_buf_append(b, &q, 1);
}

/* repr(b) for bytes. */
static void repr_bytes(d2_buf *b, const char *s, size_t n)
{
    char q = memchr(s, '\'', n) && !memchr(s, '"', n) ? '"' : '\'';
    d2_buf_puts(b, "b");
    d2_buf_append(b, &q, 1);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == (unsigned char)q || c == '\\') {
            char e[2] = {'\\', (char)c};
            d2_buf_append(b, e, 2);
        } else if (c == '\t') {
            d2_buf_puts(b, "\\t");
        } else if (c == '\n') {
            d2_buf_puts(b, "\\n");
        } else if (c == '\r') {
            d2_buf_puts(b, "\\r");
        } else if (c < 0x20 || c >= 0x7F) {
            d2_buf_printf(b, "\\x%02x", c);
        } else {
            d2_buf_append(b, &s[i], 1);
        }
    }
    d2_buf_append(b, &q, 1);
}

/* ---- quoting with few backslashes (ast.unparse's _str_literal_helper) ---- */

/* Quote types, in ast.unparse's _ALL_QUOTES order. */
enum { Q_SQ, Q_DQ, Q_TDQ, Q_TSQ, Q_COUNT };
static const char *const quote_text[Q_COUNT] = {"'", "\"", "\"\"\"", "'''"};

typedef struct quotes {
    int n;
    int q[Q_COUNT];
} quotes;

static const quotes all_quotes = {4, {Q_SQ, Q_DQ, Q_TDQ, Q_TSQ}};
static const quotes multi_quotes = {2, {Q_TDQ, Q_TSQ}};

static bool buf_contains(const d2_buf *b, const char *needle)
{
    size_t k = strlen(needle);
    for (size_t i = 0; i + k <= b->len; i++)
        if (memcmp(b->data + i, needle, k) == 0)
            return true;
    return false;
}

/* Escapes s for a string literal of one of the quote types qt, preferring
 * a type that needs no escape: backslashes and unprintable characters are
 * escaped (newline and tab too when esc_ws); quote types that the text
 * contains are ruled out, and when none is left the body of repr(s) is used
 * with the quote type matching repr's quote. res receives the literal's
 * body, *possible the usable quote types, best first. */
static void str_literal(const char *s, size_t n, const quotes *qt, bool esc_ws, d2_buf *res,
                        quotes *possible)
{
    size_t i = 0;
    while (i < n) {
        size_t at = i;
        uint32_t c = next_cp(s, n, &i);
        if (!esc_ws && (c == '\n' || c == '\t'))
            d2_buf_append(res, s + at, i - at);
        else if (c == '\\')
            d2_buf_puts(res, "\\\\");
        else if (c == '\t')
            d2_buf_puts(res, "\\t");
        else if (c == '\n')
            d2_buf_puts(res, "\\n");
        else if (c == '\r')
            d2_buf_puts(res, "\\r");
        else if (c < 0x20 || (c >= 0x7F && c < 0xA0) || !d2_unparse_printable(c))
            escape_number(res, c);
        else
            d2_buf_append(res, s + at, i - at);
    }
    bool newline = memchr(res->data ? res->data : "", '\n', res->len) != NULL;
    possible->n = 0;
    for (int k = 0; k < qt->n; k++) {
        int q = qt->q[k];
        if (newline && q != Q_TDQ && q != Q_TSQ)
            continue;
        if (buf_contains(res, quote_text[q]))
            continue;
        possible->q[possible->n++] = q;
    }
    if (possible->n == 0) {
        d2_buf r;
        d2_buf_init(&r);
        repr_str(&r, s, n);
        char rq = r.data ? r.data[0] : '\'';
        int quote = rq == '"' ? Q_DQ : Q_SQ;
        for (int k = 0; k < qt->n; k++) {
            if (quote_text[qt->q[k]][0] == rq) {
                quote = qt->q[k];
                break;
            }
        }
        res->len = 0;
        if (r.len >= 2)
            d2_buf_append(res, r.data + 1, r.len - 2);
        d2_buf_free(&r);
        possible->n = 1;
        possible->q[0] = quote;
        return;
    }
    if (res->len > 0) {
        char last = res->data[res->len - 1];
        quotes sorted = {0, {0}};
        for (int pass = 0; pass < 2; pass++)
            for (int k = 0; k < possible->n; k++)
                if ((quote_text[possible->q[k]][0] == last) == (pass == 1))
                    sorted.q[sorted.n++] = possible->q[k];
        *possible = sorted;
        if (quote_text[possible->q[0]][0] == last) {
            res->len--;
            char e[2] = {'\\', last};
            d2_buf_append(res, e, 2);
        }
    }
}

/* Writes s as a string literal using the first usable quote type of qt. */
static void write_str_avoiding_backslashes(U *u, const char *s, size_t n, const quotes *qt)
{
    d2_buf res;
    d2_buf_init(&res);
    quotes possible;
    str_literal(s, n, qt, false, &res, &possible);
    const char *q = quote_text[possible.q[0]];
    w(u, q);
    if (res.len)
        wn(u, res.data, res.len);
    w(u, q);
    if (res.oom)
        u->out->oom = true;
    d2_buf_free(&res);
}

/* ---- numbers ---- */

/* Python's repr of a finite double: the shortest digits that read back to
 * v, fixed notation for exponents -4..15, else d.ddde+XX; ".0" is added
 * to integral fixed values when dot0. */
static void repr_double(d2_buf *b, double v, bool dot0)
{
    if (isinf(v)) {
        d2_buf_puts(b, v < 0 ? "-inf" : "inf");
        return;
    }
    if (isnan(v)) {
        d2_buf_puts(b, "nan");
        return;
    }
    char tmp[64];
    for (int prec = 0; prec <= 17; prec++) {
        snprintf(tmp, sizeof tmp, "%.*e", prec, v);
        if (strtod(tmp, NULL) == v)
            break;
    }
    /* tmp is [-]d[.ddd]e[+-]XX */
    const char *p = tmp;
    if (*p == '-') {
        d2_buf_puts(b, "-");
        p++;
    }
    char digits[32];
    size_t nd = 0;
    for (; *p && *p != 'e'; p++)
        if (*p >= '0' && *p <= '9' && nd < sizeof digits - 1)
            digits[nd++] = *p;
    digits[nd] = '\0';
    int exp10 = *p == 'e' ? atoi(p + 1) : 0;
    while (nd > 1 && digits[nd - 1] == '0')
        digits[--nd] = '\0';
    int decpt = exp10 + 1;
    if (decpt > -4 && decpt <= 16) {
        if (decpt <= 0) {
            d2_buf_puts(b, "0.");
            for (int k = 0; k < -decpt; k++)
                d2_buf_puts(b, "0");
            d2_buf_puts(b, digits);
        } else if ((size_t)decpt < nd) {
            d2_buf_append(b, digits, (size_t)decpt);
            d2_buf_puts(b, ".");
            d2_buf_puts(b, digits + decpt);
        } else {
            d2_buf_puts(b, digits);
            for (size_t k = nd; k < (size_t)decpt; k++)
                d2_buf_puts(b, "0");
            if (dot0)
                d2_buf_puts(b, ".0");
        }
    } else {
        d2_buf_append(b, digits, 1);
        if (nd > 1) {
            d2_buf_puts(b, ".");
            d2_buf_puts(b, digits + 1);
        }
        d2_buf_printf(b, "e%c%02d", exp10 < 0 ? '-' : '+', exp10 < 0 ? -exp10 : exp10);
    }
}

/* A float or imaginary as ast.unparse writes it: repr with infinities
 * spelled 1e309 and NaN as (1e309-1e309). */
static void write_float(U *u, double v, bool imaginary)
{
    d2_buf r;
    d2_buf_init(&r);
    repr_double(&r, v, !imaginary);
    if (imaginary)
        d2_buf_puts(&r, "j");
    const char *s = r.data ? r.data : "";
    for (size_t i = 0; i < r.len;) {
        if (strncmp(s + i, "inf", 3) == 0) {
            w(u, "1e309");
            i += 3;
        } else if (strncmp(s + i, "nan", 3) == 0) {
            w(u, "(1e309-1e309)");
            i += 3;
        } else {
            wn(u, s + i, 1);
            i++;
        }
    }
    if (r.oom)
        u->out->oom = true;
    d2_buf_free(&r);
}

static void write_constant(U *u, const d2_ast_const *c)
{
    switch (c->kind) {
    case D2_CONST_NONE: w(u, "None"); break;
    case D2_CONST_TRUE: w(u, "True"); break;
    case D2_CONST_FALSE: w(u, "False"); break;
    case D2_CONST_ELLIPSIS: w(u, "Ellipsis"); break;
    case D2_CONST_INT: d2_buf_printf(u->out, "%lld", (long long)c->i); break;
    case D2_CONST_BIGINT: wn(u, c->str.data, c->str.len); break;
    case D2_CONST_FLOAT: write_float(u, c->f, false); break;
    case D2_CONST_COMPLEX: write_float(u, c->f, true); break;
    case D2_CONST_STR:
        if (u->avoid_bs)
            write_str_avoiding_backslashes(u, c->str.data, c->str.len, &all_quotes);
        else
            repr_str(u->out, c->str.data, c->str.len);
        break;
    case D2_CONST_BYTES: repr_bytes(u->out, c->str.data, c->str.len); break;
    }
}

/* ---- f-strings ---- */

static void fstring_inner(U *u, const d2_ast_expr *e);

/* {expr!c:spec}: the expression is printed by a fresh printer that avoids
 * backslashes, at the precedence just above a conditional expression. */
static void formatted_value(U *u, const d2_ast_expr *e)
{
    w(u, "{");
    d2_buf inner;
    d2_buf_init(&inner);
    U sub = {&inner, 0, 0, true, false};
    expr(&sub, e->formatted_value.value, next_prec(P_TEST));
    if (inner.len > 0 && inner.data[0] == '{')
        w(u, " ");
    if (inner.len)
        wn(u, inner.data, inner.len);
    if (inner.oom)
        u->out->oom = true;
    d2_buf_free(&inner);
    if (e->formatted_value.conversion != -1) {
        char conv[3] = {'!', (char)e->formatted_value.conversion, '\0'};
        w(u, conv);
    }
    if (e->formatted_value.format_spec) {
        w(u, ":");
        fstring_inner(u, e->formatted_value.format_spec);
    }
    w(u, "}");
}

/* The text between an f-string's quotes for e (a JoinedStr, one of its
 * constant parts or a FormattedValue), before quoting. */
static void fstring_inner(U *u, const d2_ast_expr *e)
{
    if (e->kind == D2_AST_JOINED_STR) {
        for (uint32_t i = 0; i < e->joined_str.values.n; i++)
            fstring_inner(u, e->joined_str.values.items[i]);
    } else if (e->kind == D2_AST_CONSTANT && e->constant.value.kind == D2_CONST_STR) {
        const char *s = e->constant.value.str.data;
        size_t n = e->constant.value.str.len;
        for (size_t i = 0; i < n; i++) {
            if (s[i] == '{')
                w(u, "{{");
            else if (s[i] == '}')
                w(u, "}}");
            else
                wn(u, &s[i], 1);
        }
    } else if (e->kind == D2_AST_FORMATTED_VALUE) {
        formatted_value(u, e);
    }
}

static void joined_str(U *u, const d2_ast_expr *e)
{
    w(u, "f");
    if (u->avoid_bs) {
        d2_buf body;
        d2_buf_init(&body);
        U sub = *u;
        sub.out = &body;
        sub.start = 0;
        fstring_inner(&sub, e);
        write_str_avoiding_backslashes(u, body.data ? body.data : "", body.len, &all_quotes);
        if (body.oom)
            u->out->oom = true;
        d2_buf_free(&body);
        return;
    }
    /* Each part is quoted on its own (constant parts with \n and \t
     * escaped); the quote type must suit every part, else every part is
     * written as repr would and the string gets triple single quotes. */
    uint32_t n = e->joined_str.values.n;
    d2_buf *raw = d2_calloc(n ? n : 1, sizeof *raw);
    d2_buf *esc = d2_calloc(n ? n : 1, sizeof *esc);
    if (!raw || !esc) {
        d2_free(raw);
        d2_free(esc);
        u->out->oom = true;
        return;
    }
    quotes qt = all_quotes;
    bool fallback = false;
    for (uint32_t i = 0; i < n; i++) {
        const d2_ast_expr *part = e->joined_str.values.items[i];
        U sub = *u;
        sub.out = &raw[i];
        sub.start = 0;
        fstring_inner(&sub, part);
        if (fallback)
            continue;
        quotes got;
        str_literal(raw[i].data ? raw[i].data : "", raw[i].len, &qt, part->kind == D2_AST_CONSTANT,
                    &esc[i], &got);
        bool shared = false;
        for (int a = 0; a < got.n && !shared; a++)
            for (int b = 0; b < qt.n; b++)
                if (got.q[a] == qt.q[b])
                    shared = true;
        if (!shared)
            fallback = true;
        else
            qt = got;
    }
    const char *q = fallback ? quote_text[Q_TSQ] : quote_text[qt.q[0]];
    w(u, q);
    for (uint32_t i = 0; i < n; i++) {
        if (fallback)
            repr_body(u->out, raw[i].data ? raw[i].data : "", raw[i].len, '\'');
        else if (esc[i].len)
            wn(u, esc[i].data, esc[i].len);
        if (raw[i].oom || esc[i].oom)
            u->out->oom = true;
        d2_buf_free(&raw[i]);
        d2_buf_free(&esc[i]);
    }
    w(u, q);
    d2_free(raw);
    d2_free(esc);
}

/* ---- expressions ---- */

static int binop_prec(d2_ast_operator op)
{
    switch (op) {
    case D2_OP_ADD:
    case D2_OP_SUB: return P_ARITH;
    case D2_OP_MULT:
    case D2_OP_MAT_MULT:
    case D2_OP_DIV:
    case D2_OP_MOD:
    case D2_OP_FLOOR_DIV: return P_TERM;
    case D2_OP_LSHIFT:
    case D2_OP_RSHIFT: return P_SHIFT;
    case D2_OP_BIT_OR: return P_BOR;
    case D2_OP_BIT_XOR: return P_BXOR;
    case D2_OP_BIT_AND: return P_BAND;
    case D2_OP_POW: return P_POWER;
    }
    return P_ATOM;
}

static void open_if(U *u, bool cond, const char *s)
{
    if (cond)
        w(u, s);
}

/* Items separated by ", ", with a trailing comma after a single item. */
static void items_view(U *u, const d2_ast_seq *items)
{
    if (items->n == 1) {
        expr(u, items->items[0], P_TEST);
        w(u, ",");
        return;
    }
    for (uint32_t i = 0; i < items->n; i++) {
        if (i)
            w(u, ", ");
        expr(u, items->items[i], P_TEST);
    }
}

static void expr_list(U *u, const d2_ast_seq *items, int p)
{
    for (uint32_t i = 0; i < items->n; i++) {
        if (i)
            w(u, ", ");
        expr(u, items->items[i], p);
    }
}

static void keyword(U *u, const d2_ast_keyword *k)
{
    if (!k->arg) {
        w(u, "**");
    } else {
        w(u, k->arg);
        w(u, "=");
    }
    expr(u, k->value, P_TEST);
}

static void comprehension(U *u, const d2_ast_comprehension *c)
{
    w(u, c->is_async ? " async for " : " for ");
    expr(u, c->target, P_TUPLE);
    w(u, " in ");
    expr(u, c->iter, next_prec(P_TEST));
    for (uint32_t i = 0; i < c->ifs.n; i++) {
        w(u, " if ");
        expr(u, c->ifs.items[i], next_prec(P_TEST));
    }
}

static void generators(U *u, const d2_ast_seq *gens)
{
    for (uint32_t i = 0; i < gens->n; i++)
        comprehension(u, gens->items[i]);
}

static bool is_int_constant(const d2_ast_expr *e)
{
    if (e->kind != D2_AST_CONSTANT)
        return false;
    d2_ast_const_kind k = e->constant.value.kind;
    return k == D2_CONST_INT || k == D2_CONST_BIGINT || k == D2_CONST_TRUE || k == D2_CONST_FALSE;
}

static void expr(U *u, const d2_ast_expr *e, int p)
{
    if (!e)
        return;
    switch (e->kind) {
    case D2_AST_BOOL_OP: {
        int op = e->bool_op.op == D2_BOOLOP_AND ? P_AND : P_OR;
        open_if(u, p > op, "(");
        int level = op;
        for (uint32_t i = 0; i < e->bool_op.values.n; i++) {
            if (i)
                w(u, e->bool_op.op == D2_BOOLOP_AND ? " and " : " or ");
            level = next_prec(level);
            expr(u, e->bool_op.values.items[i], level);
        }
        open_if(u, p > op, ")");
        break;
    }
    case D2_AST_NAMED_EXPR:
        open_if(u, p > P_NAMED_EXPR, "(");
        expr(u, e->named_expr.target, P_ATOM);
        w(u, " := ");
        expr(u, e->named_expr.value, P_ATOM);
        open_if(u, p > P_NAMED_EXPR, ")");
        break;
    case D2_AST_BIN_OP: {
        int op = binop_prec(e->bin_op.op);
        bool rassoc = e->bin_op.op == D2_OP_POW;
        open_if(u, p > op, "(");
        expr(u, e->bin_op.left, rassoc ? next_prec(op) : op);
        w(u, " ");
        w(u, d2_ast_operator_symbol(e->bin_op.op));
        w(u, " ");
        expr(u, e->bin_op.right, rassoc ? op : next_prec(op));
        open_if(u, p > op, ")");
        break;
    }
    case D2_AST_UNARY_OP: {
        static const char *const t[] = {"~", "not", "+", "-"};
        bool is_not = e->unary_op.op == D2_UNARY_NOT;
        int op = is_not ? P_NOT : P_FACTOR;
        open_if(u, p > op, "(");
        w(u, (unsigned)e->unary_op.op < 4 ? t[e->unary_op.op] : "?");
        if (is_not)
            w(u, " ");
        expr(u, e->unary_op.operand, op);
        open_if(u, p > op, ")");
        break;
    }
    case D2_AST_LAMBDA: {
        open_if(u, p > P_TEST, "(");
        w(u, "lambda");
        size_t mark = u->out->len;
        w(u, " ");
        size_t after_space = u->out->len;
        arguments(u, e->lambda.args);
        if (u->out->len == after_space && !u->out->oom)
            u->out->len = mark;
        w(u, ": ");
        expr(u, e->lambda.body, P_TEST);
        open_if(u, p > P_TEST, ")");
        break;
    }
    case D2_AST_IF_EXP:
        open_if(u, p > P_TEST, "(");
        expr(u, e->if_exp.body, next_prec(P_TEST));
        w(u, " if ");
        expr(u, e->if_exp.test, next_prec(P_TEST));
        w(u, " else ");
        expr(u, e->if_exp.orelse, P_TEST);
        open_if(u, p > P_TEST, ")");
        break;
    case D2_AST_DICT:
        w(u, "{");
        for (uint32_t i = 0; i < e->dict.values.n; i++) {
            if (i)
                w(u, ", ");
            const d2_ast_expr *k = i < e->dict.keys.n ? e->dict.keys.items[i] : NULL;
            if (!k) {
                w(u, "**");
                expr(u, e->dict.values.items[i], P_EXPR);
            } else {
                expr(u, k, P_TEST);
                w(u, ": ");
                expr(u, e->dict.values.items[i], P_TEST);
            }
        }
        w(u, "}");
        break;
    case D2_AST_SET:
        if (e->set.elts.n) {
            w(u, "{");
            expr_list(u, &e->set.elts, P_TEST);
            w(u, "}");
        } else {
            w(u, "{*()}");
        }
        break;
    case D2_AST_LIST_COMP:
        w(u, "[");
        expr(u, e->list_comp.elt, P_TEST);
        generators(u, &e->list_comp.generators);
        w(u, "]");
        break;
    case D2_AST_SET_COMP:
        w(u, "{");
        expr(u, e->set_comp.elt, P_TEST);
        generators(u, &e->set_comp.generators);
        w(u, "}");
        break;
    case D2_AST_GENERATOR_EXP:
        w(u, "(");
        expr(u, e->generator_exp.elt, P_TEST);
        generators(u, &e->generator_exp.generators);
        w(u, ")");
        break;
    case D2_AST_DICT_COMP:
        w(u, "{");
        expr(u, e->dict_comp.key, P_TEST);
        w(u, ": ");
        expr(u, e->dict_comp.value, P_TEST);
        generators(u, &e->dict_comp.generators);
        w(u, "}");
        break;
    case D2_AST_AWAIT:
        open_if(u, p > P_AWAIT, "(");
        w(u, "await");
        if (e->await.value) {
            w(u, " ");
            expr(u, e->await.value, P_ATOM);
        }
        open_if(u, p > P_AWAIT, ")");
        break;
    case D2_AST_YIELD:
        open_if(u, p > P_YIELD, "(");
        w(u, "yield");
        if (e->yield.value) {
            w(u, " ");
            expr(u, e->yield.value, P_ATOM);
        }
        open_if(u, p > P_YIELD, ")");
        break;
    case D2_AST_YIELD_FROM:
        open_if(u, p > P_YIELD, "(");
        w(u, "yield from ");
        expr(u, e->yield_from.value, P_ATOM);
        open_if(u, p > P_YIELD, ")");
        break;
    case D2_AST_COMPARE:
        open_if(u, p > P_CMP, "(");
        expr(u, e->compare.left, next_prec(P_CMP));
        for (uint32_t i = 0; i < e->compare.comparators.n; i++) {
            w(u, " ");
            w(u, d2_ast_cmpop_symbol(e->compare.ops[i]));
            w(u, " ");
            expr(u, e->compare.comparators.items[i], next_prec(P_CMP));
        }
        open_if(u, p > P_CMP, ")");
        break;
    case D2_AST_CALL: {
        expr(u, e->call.func, P_ATOM);
        w(u, "(");
        expr_list(u, &e->call.args, P_TEST);
        for (uint32_t i = 0; i < e->call.keywords.n; i++) {
            if (i || e->call.args.n)
                w(u, ", ");
            keyword(u, e->call.keywords.items[i]);
        }
        w(u, ")");
        break;
    }
    case D2_AST_FORMATTED_VALUE: formatted_value(u, e); break;
    case D2_AST_JOINED_STR: joined_str(u, e); break;
    case D2_AST_CONSTANT:
        if (e->constant.value.kind == D2_CONST_ELLIPSIS) {
            w(u, "...");
            break;
        }
        if (e->constant.kind && strcmp(e->constant.kind, "u") == 0)
            w(u, "u");
        write_constant(u, &e->constant.value);
        break;
    case D2_AST_ATTRIBUTE:
        expr(u, e->attribute.value, P_ATOM);
        if (is_int_constant(e->attribute.value))
            w(u, " ");
        w(u, ".");
        w(u, e->attribute.attr);
        break;
    case D2_AST_SUBSCRIPT: {
        expr(u, e->subscript.value, P_ATOM);
        w(u, "[");
        const d2_ast_expr *sl = e->subscript.slice;
        if (sl && sl->kind == D2_AST_TUPLE && sl->tuple.elts.n > 0)
            items_view(u, &sl->tuple.elts);
        else
            expr(u, sl, P_TEST);
        w(u, "]");
        break;
    }
    case D2_AST_STARRED:
        w(u, "*");
        expr(u, e->starred.value, P_EXPR);
        break;
    case D2_AST_NAME: w(u, e->name.id); break;
    case D2_AST_LIST:
        w(u, "[");
        expr_list(u, &e->list.elts, P_TEST);
        w(u, "]");
        break;
    case D2_AST_TUPLE: {
        bool parens = e->tuple.elts.n == 0 || p > P_TUPLE;
        open_if(u, parens, "(");
        items_view(u, &e->tuple.elts);
        open_if(u, parens, ")");
        break;
    }
    case D2_AST_SLICE:
        expr(u, e->slice.lower, P_TEST);
        w(u, ":");
        expr(u, e->slice.upper, P_TEST);
        if (e->slice.step) {
            w(u, ":");
            expr(u, e->slice.step, P_TEST);
        }
        break;
    default: break;
    }
}

/* ---- helper nodes ---- */

static void arg(U *u, const d2_ast_arg *a)
{
    w(u, a->arg);
    if (a->annotation) {
        w(u, ": ");
        expr(u, a->annotation, P_TEST);
    }
}

static void arguments(U *u, const d2_ast_arguments *a)
{
    if (!a)
        return;
    bool first = true;
    uint32_t npos = a->posonlyargs.n, nall = npos + a->args.n;
    uint32_t nodef = nall > a->defaults.n ? nall - a->defaults.n : 0;
    for (uint32_t i = 0; i < nall; i++) {
        if (!first)
            w(u, ", ");
        first = false;
        arg(u, i < npos ? a->posonlyargs.items[i] : a->args.items[i - npos]);
        if (i >= nodef && a->defaults.items[i - nodef]) {
            w(u, "=");
            expr(u, a->defaults.items[i - nodef], P_TEST);
        }
        if (i + 1 == npos)
            w(u, ", /");
    }
    if (a->vararg || a->kwonlyargs.n) {
        if (!first)
            w(u, ", ");
        first = false;
        w(u, "*");
        if (a->vararg)
            arg(u, a->vararg);
    }
    for (uint32_t i = 0; i < a->kwonlyargs.n; i++) {
        w(u, ", ");
        arg(u, a->kwonlyargs.items[i]);
        const d2_ast_expr *d = i < a->kw_defaults.n ? a->kw_defaults.items[i] : NULL;
        if (d) {
            w(u, "=");
            expr(u, d, P_TEST);
        }
    }
    if (a->kwarg) {
        if (!first)
            w(u, ", ");
        w(u, "**");
        arg(u, a->kwarg);
    }
}

static void alias(U *u, const d2_ast_alias *a)
{
    w(u, a->name);
    if (a->asname) {
        w(u, " as ");
        w(u, a->asname);
    }
}

static void withitem(U *u, const d2_ast_withitem *it)
{
    expr(u, it->context_expr, P_TEST);
    if (it->optional_vars) {
        w(u, " as ");
        expr(u, it->optional_vars, P_TEST);
    }
}

/* ---- patterns ---- */

static void pattern_list(U *u, const d2_ast_seq *ps, int p)
{
    for (uint32_t i = 0; i < ps->n; i++) {
        if (i)
            w(u, ", ");
        pattern(u, ps->items[i], p);
    }
}

static void pattern(U *u, const d2_ast_pattern *pt, int p)
{
    if (!pt)
        return;
    switch (pt->kind) {
    case D2_AST_MATCH_VALUE: expr(u, pt->match_value.value, P_TEST); break;
    case D2_AST_MATCH_SINGLETON: write_constant(u, &pt->match_singleton.value); break;
    case D2_AST_MATCH_SEQUENCE:
        w(u, "[");
        pattern_list(u, &pt->match_sequence.patterns, P_TEST);
        w(u, "]");
        break;
    case D2_AST_MATCH_STAR:
        w(u, "*");
        w(u, pt->match_star.name ? pt->match_star.name : "_");
        break;
    case D2_AST_MATCH_MAPPING: {
        w(u, "{");
        uint32_t n = pt->match_mapping.keys.n;
        for (uint32_t i = 0; i < n; i++) {
            if (i)
                w(u, ", ");
            expr(u, pt->match_mapping.keys.items[i], P_TEST);
            w(u, ": ");
            if (i < pt->match_mapping.patterns.n)
                pattern(u, pt->match_mapping.patterns.items[i], P_TEST);
        }
        if (pt->match_mapping.rest) {
            if (n)
                w(u, ", ");
            w(u, "**");
            w(u, pt->match_mapping.rest);
        }
        w(u, "}");
        break;
    }
    case D2_AST_MATCH_CLASS: {
        expr(u, pt->match_class.cls, P_ATOM);
        w(u, "(");
        pattern_list(u, &pt->match_class.patterns, P_TEST);
        uint32_t n = pt->match_class.kwd_attrs.n;
        if (n && pt->match_class.patterns.n)
            w(u, ", ");
        for (uint32_t i = 0; i < n; i++) {
            if (i)
                w(u, ", ");
            w(u, pt->match_class.kwd_attrs.items[i]);
            w(u, "=");
            if (i < pt->match_class.kwd_patterns.n)
                pattern(u, pt->match_class.kwd_patterns.items[i], P_TEST);
        }
        w(u, ")");
        break;
    }
    case D2_AST_MATCH_AS:
        if (!pt->match_as.name) {
            w(u, "_");
        } else if (!pt->match_as.pattern) {
            w(u, pt->match_as.name);
        } else {
            open_if(u, p > P_TEST, "(");
            pattern(u, pt->match_as.pattern, P_BOR);
            w(u, " as ");
            w(u, pt->match_as.name);
            open_if(u, p > P_TEST, ")");
        }
        break;
    case D2_AST_MATCH_OR:
        open_if(u, p > P_BOR, "(");
        for (uint32_t i = 0; i < pt->match_or.patterns.n; i++) {
            if (i)
                w(u, " | ");
            pattern(u, pt->match_or.patterns.items[i], next_prec(P_BOR));
        }
        open_if(u, p > P_BOR, ")");
        break;
    default: break;
    }
}

/* ---- statements ---- */

static void body(U *u, const d2_ast_seq *b)
{
    for (uint32_t i = 0; i < b->n; i++)
        stmt(u, b->items[i]);
}

/* ":" then the statements one level deeper. */
static void block(U *u, const d2_ast_seq *b)
{
    w(u, ":");
    u->indent++;
    body(u, b);
    u->indent--;
}

/* The docstring node of a def, class or module body, or NULL. */
static const d2_ast_expr *docstring(const d2_ast_seq *b)
{
    if (b->n < 1)
        return NULL;
    const d2_ast_stmt *s = b->items[0];
    if (s->kind != D2_AST_EXPR)
        return NULL;
    const d2_ast_expr *v = s->expr.value;
    if (v->kind != D2_AST_CONSTANT || v->constant.value.kind != D2_CONST_STR)
        return NULL;
    return v;
}

/* A body whose docstring is written with triple quotes. */
static void doc_body(U *u, const d2_ast_seq *b)
{
    const d2_ast_expr *doc = docstring(b);
    if (!doc) {
        body(u, b);
        return;
    }
    fill(u, "");
    if (doc->constant.kind && strcmp(doc->constant.kind, "u") == 0)
        w(u, "u");
    write_str_avoiding_backslashes(u, doc->constant.value.str.data, doc->constant.value.str.len,
                                   &multi_quotes);
    for (uint32_t i = 1; i < b->n; i++)
        stmt(u, b->items[i]);
}

static void decorators(U *u, const d2_ast_seq *decos)
{
    for (uint32_t i = 0; i < decos->n; i++) {
        fill(u, "@");
        expr(u, decos->items[i], P_TEST);
    }
}

static void excepthandler(U *u, const d2_ast_excepthandler *h)
{
    fill(u, u->in_try_star ? "except*" : "except");
    if (h->type) {
        w(u, " ");
        expr(u, h->type, P_TEST);
    }
    if (h->name) {
        w(u, " as ");
        w(u, h->name);
    }
    block(u, &h->body);
}

static void match_case(U *u, const d2_ast_match_case *c)
{
    fill(u, "case ");
    pattern(u, c->pattern, P_TEST);
    if (c->guard) {
        w(u, " if ");
        expr(u, c->guard, P_TEST);
    }
    block(u, &c->body);
}

static void stmt(U *u, const d2_ast_stmt *s)
{
    if (!s)
        return;
    switch (s->kind) {
    case D2_AST_FUNCTION_DEF:
    case D2_AST_ASYNC_FUNCTION_DEF:
        maybe_newline(u);
        decorators(u, &s->function_def.decorator_list);
        fill(u, s->kind == D2_AST_FUNCTION_DEF ? "def " : "async def ");
        w(u, s->function_def.name);
        w(u, "(");
        arguments(u, s->function_def.args);
        w(u, ")");
        if (s->function_def.returns) {
            w(u, " -> ");
            expr(u, s->function_def.returns, P_TEST);
        }
        w(u, ":");
        u->indent++;
        doc_body(u, &s->function_def.body);
        u->indent--;
        break;
    case D2_AST_CLASS_DEF: {
        maybe_newline(u);
        decorators(u, &s->class_def.decorator_list);
        fill(u, "class ");
        w(u, s->class_def.name);
        bool parens = s->class_def.bases.n || s->class_def.keywords.n;
        open_if(u, parens, "(");
        expr_list(u, &s->class_def.bases, P_TEST);
        for (uint32_t i = 0; i < s->class_def.keywords.n; i++) {
            if (i || s->class_def.bases.n)
                w(u, ", ");
            keyword(u, s->class_def.keywords.items[i]);
        }
        open_if(u, parens, ")");
        w(u, ":");
        u->indent++;
        doc_body(u, &s->class_def.body);
        u->indent--;
        break;
    }
    case D2_AST_RETURN:
        fill(u, "return");
        if (s->return_.value) {
            w(u, " ");
            expr(u, s->return_.value, P_TEST);
        }
        break;
    case D2_AST_DELETE:
        fill(u, "del ");
        expr_list(u, &s->delete.targets, P_TEST);
        break;
    case D2_AST_ASSIGN:
        fill(u, "");
        for (uint32_t i = 0; i < s->assign.targets.n; i++) {
            expr(u, s->assign.targets.items[i], P_TUPLE);
            w(u, " = ");
        }
        expr(u, s->assign.value, P_TEST);
        break;
    case D2_AST_AUG_ASSIGN:
        fill(u, "");
        expr(u, s->aug_assign.target, P_TEST);
        w(u, " ");
        w(u, d2_ast_operator_symbol(s->aug_assign.op));
        w(u, "= ");
        expr(u, s->aug_assign.value, P_TEST);
        break;
    case D2_AST_ANN_ASSIGN: {
        fill(u, "");
        bool parens = !s->ann_assign.simple && s->ann_assign.target->kind == D2_AST_NAME;
        open_if(u, parens, "(");
        expr(u, s->ann_assign.target, P_TEST);
        open_if(u, parens, ")");
        w(u, ": ");
        expr(u, s->ann_assign.annotation, P_TEST);
        if (s->ann_assign.value) {
            w(u, " = ");
            expr(u, s->ann_assign.value, P_TEST);
        }
        break;
    }
    case D2_AST_FOR:
    case D2_AST_ASYNC_FOR:
        fill(u, s->kind == D2_AST_FOR ? "for " : "async for ");
        expr(u, s->for_.target, P_TUPLE);
        w(u, " in ");
        expr(u, s->for_.iter, P_TEST);
        block(u, &s->for_.body);
        if (s->for_.orelse.n) {
            fill(u, "else");
            block(u, &s->for_.orelse);
        }
        break;
    case D2_AST_WHILE:
        fill(u, "while ");
        expr(u, s->while_.test, P_TEST);
        block(u, &s->while_.body);
        if (s->while_.orelse.n) {
            fill(u, "else");
            block(u, &s->while_.orelse);
        }
        break;
    case D2_AST_IF: {
        fill(u, "if ");
        expr(u, s->if_.test, P_TEST);
        block(u, &s->if_.body);
        const d2_ast_stmt *node = s;
        while (node->if_.orelse.n == 1 &&
               ((const d2_ast_stmt *)node->if_.orelse.items[0])->kind == D2_AST_IF) {
            node = node->if_.orelse.items[0];
            fill(u, "elif ");
            expr(u, node->if_.test, P_TEST);
            block(u, &node->if_.body);
        }
        if (node->if_.orelse.n) {
            fill(u, "else");
            block(u, &node->if_.orelse);
        }
        break;
    }
    case D2_AST_WITH:
    case D2_AST_ASYNC_WITH:
        fill(u, s->kind == D2_AST_WITH ? "with " : "async with ");
        for (uint32_t i = 0; i < s->with.items.n; i++) {
            if (i)
                w(u, ", ");
            withitem(u, s->with.items.items[i]);
        }
        block(u, &s->with.body);
        break;
    case D2_AST_MATCH:
        fill(u, "match ");
        expr(u, s->match.subject, P_TEST);
        w(u, ":");
        u->indent++;
        for (uint32_t i = 0; i < s->match.cases.n; i++)
            match_case(u, s->match.cases.items[i]);
        u->indent--;
        break;
    case D2_AST_RAISE:
        fill(u, "raise");
        if (!s->raise.exc)
            break;
        w(u, " ");
        expr(u, s->raise.exc, P_TEST);
        if (s->raise.cause) {
            w(u, " from ");
            expr(u, s->raise.cause, P_TEST);
        }
        break;
    case D2_AST_TRY:
    case D2_AST_TRY_STAR: {
        bool prev = u->in_try_star;
        u->in_try_star = s->kind == D2_AST_TRY_STAR;
        fill(u, "try");
        block(u, &s->try_.body);
        for (uint32_t i = 0; i < s->try_.handlers.n; i++)
            excepthandler(u, s->try_.handlers.items[i]);
        if (s->try_.orelse.n) {
            fill(u, "else");
            block(u, &s->try_.orelse);
        }
        if (s->try_.finalbody.n) {
            fill(u, "finally");
            block(u, &s->try_.finalbody);
        }
        u->in_try_star = prev;
        break;
    }
    case D2_AST_ASSERT:
        fill(u, "assert ");
        expr(u, s->assert_.test, P_TEST);
        if (s->assert_.msg) {
            w(u, ", ");
            expr(u, s->assert_.msg, P_TEST);
        }
        break;
    case D2_AST_IMPORT:
        fill(u, "import ");
        for (uint32_t i = 0; i < s->import.names.n; i++) {
            if (i)
                w(u, ", ");
            alias(u, s->import.names.items[i]);
        }
        break;
    case D2_AST_IMPORT_FROM:
        fill(u, "from ");
        for (int i = 0; i < s->import_from.level; i++)
            w(u, ".");
        if (s->import_from.module)
            w(u, s->import_from.module);
        w(u, " import ");
        for (uint32_t i = 0; i < s->import_from.names.n; i++) {
            if (i)
                w(u, ", ");
            alias(u, s->import_from.names.items[i]);
        }
        break;
    case D2_AST_GLOBAL:
    case D2_AST_NONLOCAL:
        fill(u, s->kind == D2_AST_GLOBAL ? "global " : "nonlocal ");
        for (uint32_t i = 0; i < s->global.names.n; i++) {
            if (i)
                w(u, ", ");
            w(u, s->global.names.items[i]);
        }
        break;
    case D2_AST_EXPR:
        fill(u, "");
        expr(u, s->expr.value, P_YIELD);
        break;
    case D2_AST_PASS: fill(u, "pass"); break;
    case D2_AST_BREAK: fill(u, "break"); break;
    case D2_AST_CONTINUE: fill(u, "continue"); break;
    default: break;
    }
}

/* ---- entry points ---- */

void d2_unparse(d2_buf *out, const void *node)
{
    if (!node)
        return;
    U u = {out, out->len, 0, false, false};
    const d2_ast_node *n = node;
    if (n->kind == D2_AST_MODULE)
        doc_body(&u, &((const d2_ast_module *)node)->body);
    else if (d2_ast_is_stmt(n->kind))
        stmt(&u, node);
    else if (d2_ast_is_expr(n->kind))
        expr(&u, node, P_TEST);
    else if (d2_ast_is_pattern(n->kind))
        pattern(&u, node, P_TEST);
    else {
        switch (n->kind) {
        case D2_AST_ARGUMENTS: arguments(&u, node); break;
        case D2_AST_ARG: arg(&u, node); break;
        case D2_AST_KEYWORD: keyword(&u, node); break;
        case D2_AST_ALIAS: alias(&u, node); break;
        case D2_AST_WITHITEM: withitem(&u, node); break;
        case D2_AST_COMPREHENSION: comprehension(&u, node); break;
        case D2_AST_EXCEPT_HANDLER: excepthandler(&u, node); break;
        case D2_AST_MATCH_CASE: match_case(&u, node); break;
        default: break;
        }
    }
}

void d2_unparse_body(d2_buf *out, const d2_ast_seq *b, int indent)
{
    U u = {out, out->len, indent, false, false};
    body(&u, b);
}

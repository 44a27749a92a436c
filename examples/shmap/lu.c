/* lu.c - LU decomposition without pivoting of an N x N static array (-DN=32),
 * right-looking (k, then the rows i and columns j of the trailing matrix): the
 * program behind examples/shmap/lu.lua's kji trace, as ordinary C. */
#ifndef N
#define N 32
#endif
double A[N][N];

int main(void)
{
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            A[i][j] = i == j ? 2.0 * N : 1.0 / (1 + i + j);
    for (int k = 0; k < N; k++)
        for (int i = k + 1; i < N; i++) {
            A[i][k] /= A[k][k];
            for (int j = k + 1; j < N; j++)
                A[i][j] -= A[i][k] * A[k][j];
        }
    return A[N - 1][N - 1] <= 0;
}

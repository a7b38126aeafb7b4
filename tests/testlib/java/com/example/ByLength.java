package com.example;
public final class ByLength implements java.util.Comparator<String>, java.io.Serializable {
  private static final long serialVersionUID = 7L;
  private final String code = "public int compare(RowData a, RowData b) { return 0; }";
  public int compare(String a, String b) { return a.length() - b.length(); }
}
